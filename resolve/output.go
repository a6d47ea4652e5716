package resolve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/internal/textout"
)

// installJSON is one element of the documented "install" list.
type installJSON struct {
	Name         string  `json:"name"`
	Package      string  `json:"package"`
	Channel      string  `json:"channel"`
	Catalog      string  `json:"catalog"`
	Replaces     *string `json:"replaces"`
	Subscription *string `json:"subscription"`
}

// resultJSON is the documented `fbc resolve -o json` object.
type resultJSON struct {
	Namespace string        `json:"namespace"`
	Install   []installJSON `json:"install"`
	// Outcomes lists every possible install list when OLM decides at
	// random; absent otherwise.
	Outcomes         [][]installJSON `json:"outcomes,omitempty"`
	OutcomesComplete *bool           `json:"outcomesComplete,omitempty"`
	Error            *string         `json:"error"`
	// Why sums up the conflict when the namespace does not resolve.
	Why string `json:"why,omitempty"`
	// PassedOver lists, per Subscription, the candidates it preferred to
	// what it got and why each was not chosen.
	PassedOver []passedOverJSON `json:"passedOver,omitempty"`
	// InstallFailures are the CSVs OLM fails for their OperatorGroup.
	InstallFailures []failureJSON `json:"installFailures,omitempty"`
}

type passedOverJSON struct {
	Subscription string `json:"subscription"`
	Bundle       string `json:"bundle"`
	Reason       string `json:"reason"`
}

type failureJSON struct {
	CSV          string  `json:"csv"`
	Subscription *string `json:"subscription"`
	Reason       string  `json:"reason"`
	Message      string  `json:"message"`
	Detail       string  `json:"detail,omitempty"`
}

func installsJSON(ins []Install) []installJSON {
	out := make([]installJSON, 0, len(ins))
	for _, in := range ins {
		j := installJSON{Name: in.Name, Package: in.Package, Channel: in.Channel, Catalog: in.Catalog.String()}
		if in.Replaces != "" {
			j.Replaces = &in.Replaces
		}
		if in.Subscription != "" {
			j.Subscription = &in.Subscription
		}
		out = append(out, j)
	}
	return out
}

// WriteJSON writes one JSON object per namespace, each on its own lines
// (a JSON stream; one namespace is one object).
func WriteJSON(w io.Writer, results []*Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	for _, r := range results {
		out := resultJSON{Namespace: r.Namespace, Install: installsJSON(r.Install)}
		if r.Err != nil {
			msg := r.Err.Error()
			out.Error = &msg
			out.Install = []installJSON{}
			out.Why = r.Why
		}
		for _, sr := range r.Subscriptions {
			for _, p := range sr.PassedOver {
				out.PassedOver = append(out.PassedOver, passedOverJSON{Subscription: sr.Name, Bundle: p.Bundle, Reason: p.Reason})
			}
		}
		for _, f := range r.InstallFailures {
			fj := failureJSON{CSV: f.CSV, Reason: f.Reason, Message: f.Message, Detail: f.Detail}
			if f.Subscription != "" {
				sub := f.Subscription
				fj.Subscription = &sub
			}
			out.InstallFailures = append(out.InstallFailures, fj)
		}
		if len(r.Outcomes) > 1 {
			for _, o := range r.Outcomes {
				out.Outcomes = append(out.Outcomes, installsJSON(o.Install))
			}
			complete := r.OutcomesComplete
			out.OutcomesComplete = &complete
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	return nil
}

// WriteText explains each namespace's result: per Subscription what is
// installed or upgraded, from which channel and catalog; per dependency
// which bundles require it and which preferred candidates could not be
// installed; or OLM's message when it does not resolve.
func WriteText(w io.Writer, results []*Result) error {
	tw := textout.New(w)
	for i, r := range results {
		if i > 0 {
			tw.Printf("\n")
		}
		switch {
		case r.Err != nil:
			tw.Printf("namespace %s: does not resolve\n", r.Namespace)
			if r.Why != "" {
				tw.Printf("  why: %s\n", r.Why)
			}
			var ns NotSatisfiable
			if errors.As(r.Err, &ns) && len(ns) > 0 {
				// OLM's message, one constraint a line. A bundle in several
				// channels is several variables with the same wording:
				// say it once, with the count. A rule over many bundles
				// names the first few (-o json has every one).
				tw.Printf("  constraints not satisfiable:\n")
				for i := 0; i < len(ns); {
					j := i + 1
					for j < len(ns) && ns[j] == ns[i] {
						j++
					}
					if j-i > 1 {
						tw.Printf("  - %s (%d times)\n", shortenList(ns[i]), j-i)
					} else {
						tw.Printf("  - %s\n", shortenList(ns[i]))
					}
					i = j
				}
			} else {
				tw.Printf("  %s\n", r.Err)
			}
		case len(r.Outcomes) > 1:
			more := ""
			if !r.OutcomesComplete {
				more = " (at least; too many Subscriptions interact to try every order)"
			}
			tw.Printf("namespace %s: resolves, but OLM picks one of %d outcomes at random%s: it visits the Subscriptions in a random order and their preferences conflict\n",
				r.Namespace, len(r.Outcomes), more)
			for j, o := range r.Outcomes {
				tw.Printf("\n  outcome %d:\n", j+1)
				writeOutcome(tw, o, "    ")
			}
		case len(r.InstallFailures) > 0:
			tw.Printf("namespace %s: resolves, but OLM fails %d of the CSVs it installs\n", r.Namespace, len(r.InstallFailures))
			writeOutcome(tw, r.Outcome, "  ")
		default:
			tw.Printf("namespace %s: resolves\n", r.Namespace)
			writeOutcome(tw, r.Outcome, "  ")
		}
		for _, f := range r.InstallFailures {
			tw.Printf("  OLM fails CSV %s (%s): %s\n", f.CSV, f.Reason, f.Message)
			if f.Detail != "" {
				tw.Printf("    %s\n", f.Detail)
			}
		}
	}
	return tw.Err()
}

func writeOutcome(tw *textout.Writer, o Outcome, indent string) {
	bySub := map[string]bool{}
	for _, sr := range o.Subscriptions {
		switch {
		case sr.Next != nil && sr.Installed != "":
			tw.Printf("%ssubscription %s: upgrades %s -> %s (package %s, channel %s, catalog %s)\n", indent, sr.Name, sr.Installed, sr.Next.Name, sr.Next.Package, sr.Next.Channel, sr.Next.Catalog)
		case sr.Next != nil:
			tw.Printf("%ssubscription %s: installs %s (package %s, channel %s, catalog %s)\n", indent, sr.Name, sr.Next.Name, sr.Next.Package, sr.Next.Channel, sr.Next.Catalog)
		case len(sr.Successors) > 0:
			tw.Printf("%ssubscription %s: %s stays; its %s (%s) cannot be installed\n", indent, sr.Name, sr.Installed,
				plural(len(sr.Successors), "upgrade", "upgrades"), joinNames(sr.Successors, 3))
		default:
			where := "catalog " + sr.Catalog.String()
			if sr.Channel != "" {
				where = "channel " + sr.Channel + " of " + where
			}
			tw.Printf("%ssubscription %s: %s stays; no bundle in %s replaces it, skips it or has a skipRange over its version\n", indent, sr.Name, sr.Installed, where)
		}
		for _, p := range sr.PassedOver {
			tw.Printf("%s  passed over %s: %s\n", indent, p.Bundle, p.Reason)
		}
		reqs := sr.RequiredBy
		if sr.Next != nil {
			bySub[sr.Next.id] = true
			reqs = sr.Next.RequiredBy
		}
		writeRequirements(tw, reqs, indent+"  ")
	}
	for _, in := range o.Install {
		if bySub[in.id] {
			continue
		}
		tw.Printf("%sdependency %s (package %s, channel %s, catalog %s)", indent, in.Name, in.Package, in.Channel, in.Catalog)
		if in.Subscription != "" {
			tw.Printf(" for Subscription %s\n", in.Subscription)
		} else {
			tw.Printf("; OLM creates Subscription %s\n", in.NewSubscription())
		}
		writeRequirements(tw, in.RequiredBy, indent+"  ")
	}
	if len(o.Install) == 0 {
		tw.Printf("%snothing to install or upgrade\n", indent)
	}
}

func writeRequirements(tw *textout.Writer, reqs []Requirement, indent string) {
	for _, r := range reqs {
		tw.Printf("%s%s requires an operator %s", indent, r.Bundle, r.What)
		if len(r.Passed) > 0 {
			tw.Printf(" (preferred %s not chosen)", joinNames(r.Passed, 3))
		}
		tw.Printf("\n")
	}
}

// listedRule matches OLM's "only one" constraints over many bundles:
// "A, B and C originate from package P", "A, B and C provide API".
var listedRule = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(.+) and (\S+) (originate from package \S+|provide .+)$`)
})

// shortenList names the first few bundles of a long "only one" constraint
// and how many more there are.
func shortenList(c string) string {
	m := listedRule().FindStringSubmatch(c)
	if m == nil {
		return c
	}
	ids := append(strings.Split(m[1], ", "), m[2])
	if len(ids) <= 5 {
		return c
	}
	return fmt.Sprintf("%s (%d bundles) %s", joinNames(ids, 3), len(ids), m[3])
}

func joinNames(names []string, max int) string {
	if len(names) > max {
		return strings.Join(names[:max], ", ") + fmt.Sprintf(" and %d more", len(names)-max)
	}
	return strings.Join(names, ", ")
}

package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/resolve"
)

func newUpgradePathCmd() *cobra.Command {
	var (
		q         graph.UpgradeQuery
		channels  []string
		all       bool
		semantics = newEnum("classic", "classic", "v1")
		policy    = newEnum(string(graph.CatalogProvided), string(graph.CatalogProvided), string(graph.SelfCertified))
		output    = newEnum("text", "text", "json")
		cluster   string
		pull      image.Options
	)
	cmd := &cobra.Command{
		Use:   "upgrade-path CATALOG --package P [--from NAME [--from-version V]]",
		Short: "Simulate where OLM upgrades an installed bundle, under classic or v1 rules",
		Long: `upgrade-path answers "from this bundle, where does OLM take me?" offline.

It resolves the package's upgrade graph the way OLM does and repeats the step
until nothing changes. --semantics classic follows a Subscription (one
channel at most; candidates are ordered along the channel's replaces chain
and the one closest to the head wins); --semantics v1 follows a
ClusterExtension (any number of channels, an optional version range and
upgrade constraint policy; the highest version among the successors wins).

Under classic, a bundle's dependencies are resolved as OLM's resolver does
(fbc resolve), from this catalog alone: a successor whose dependencies do not
resolve is passed over, and a step where nothing works fails with OLM's
message. v1 refuses bundles that declare dependencies.

--from names the installed bundle; --from-version gives its version when the
catalog does not have it. Without --from the simulation is a fresh install.
--all simulates every bundle of each channel as the installed one and flags
the bundles that can never reach the channel's head ("dead ends"); without
--package it does so for every package of the catalog.

--cluster-version checks the path against a cluster: an OpenShift release
(4.18, which ships Kubernetes 1.31: OpenShift 4.N ships 1.(N+13), 5.N
ships 1.(N+36)) or, for a
cluster that is not OpenShift, a Kubernetes release (1.31). A step to a
bundle whose olm.maxOpenShiftVersion is below the cluster's OpenShift, or
whose minKubeVersion is above its Kubernetes, is marked: the cluster cannot
take it. Whenever a bundle declares olm.maxOpenShiftVersion, --all also
checks every path against every OpenShift release (a cluster cannot upgrade
past the maxOpenShiftVersion of the bundle it runs) and lists the bundles
no cluster version reaches.

CATALOG is a directory, a file, - for standard input, or a catalog image
(registry, oci:, oci-archive:, docker-archive:), pulled as fbc render pulls it.

Exit status: 0 when the simulation ran (also when there is no update),
1 when resolution fails, --cluster-version's cluster cannot take a step,
or --all finds dead ends or paths no cluster completes, 2 for usage
mistakes.`,
		Example: `  fbc upgrade-path catalog/ --package etcd --from etcdoperator.v0.9.0 --channel alpha
  fbc upgrade-path catalog/ --package etcd --semantics v1 --from etcdoperator.v0.9.0 -o json
  fbc upgrade-path catalog/ --package etcd --all --semantics v1
  fbc upgrade-path catalog/ --package etcd --from etcdoperator.v0.9.0 --cluster-version 4.18
  fbc upgrade-path catalog/ --all`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Semantics = graph.Semantics(semantics.String())
			q.Channels = channels
			if cmd.Flags().Changed("policy") || q.Semantics == graph.V1 {
				q.Policy = graph.Policy(policy.String())
			}
			if err := checkUpgradeQuery(cmd, &q, all, cluster); err != nil {
				return err
			}
			if err := checkPullFlags(pull); err != nil {
				return err
			}
			cat, err := loadGraph(cmd, pull, args[0], "simulate", catalogReads{})
			if err != nil {
				return err
			}
			if all {
				s, err := graph.SurveyAll(cat, q)
				if err != nil {
					return err
				}
				return writeSurvey(cmd.OutOrStdout(), s, output.String())
			}
			// A path resolves dependencies as OLM's resolver does, in a
			// namespace that sees only this catalog. A survey stays with
			// the upgrade graph: its heads and dead ends are the
			// channels', whatever other catalogs a cluster has.
			if q.Semantics == graph.Classic {
				q.Dependencies = resolve.NewUpgradeChecker(cmd.Context(), cat.Catalog)
			}
			p, err := graph.UpgradePath(cat, q)
			if err != nil {
				return err
			}
			return writeUpgradePath(cmd.OutOrStdout(), p, q, output.String())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&q.Package, "package", "p", "", "package to simulate (required, except with --all)")
	f.StringVar(&q.From, "from", "", "installed bundle name (default: fresh install)")
	f.StringVar(&q.FromVersion, "from-version", "", "installed bundle version, for a bundle the catalog does not have")
	f.StringArrayVar(&channels, "channel", nil, "channel to subscribe to (repeatable for v1; classic takes one, \"\" for none)")
	completeNames(cmd, firstArg, packageNames, "package")
	completeNames(cmd, firstArg, channelNames, "channel")
	completeNames(cmd, firstArg, bundleNames, "from")
	f.StringVar(&q.VersionRange, "version", "", "v1 version constraint, e.g. \">=1.2.0 <2.0.0\" (Masterminds syntax)")
	f.BoolVar(&all, "all", false, "simulate every bundle as the installed one and report dead ends")
	f.StringVar(&cluster, "cluster-version", "", "check the steps against a cluster at this `VERSION`: OpenShift (4.18) or Kubernetes (1.31)")
	semantics.register(cmd, "semantics", "", "upgrade rules to follow")
	policy.register(cmd, "policy", "", "v1 upgrade constraint policy")
	output.register(cmd, "output", "o", "output format")
	addPullFlags(f, &pull)
	return withProgress(cmd, "reading")
}

// checkUpgradeQuery checks what the flags ask and completes the query:
// --package or --all, --all without an installed bundle, a v1 version range
// the ClusterExtension CRD would refuse (a warning), --cluster-version.
func checkUpgradeQuery(cmd *cobra.Command, q *graph.UpgradeQuery, all bool, cluster string) error {
	if q.Package == "" && !all {
		return usageErrorf("--package is required (or --all, to survey every package)")
	}
	if all && (q.From != "" || q.FromVersion != "") {
		return usageErrorf("--all simulates every bundle; it cannot be combined with --from or --from-version")
	}
	q.Warn = warner(cmd.ErrOrStderr())
	if q.Semantics == graph.V1 && q.VersionRange != "" {
		if ok, why := graph.ClusterExtensionAccepts(q.VersionRange); !ok {
			q.Warn.Printf("the ClusterExtension CRD rejects version %q (%s): a cluster would not accept this ClusterExtension", q.VersionRange, why)
		}
	}
	if cluster != "" {
		cv, err := graph.ParseClusterVersion(cluster)
		if err != nil {
			return fmt.Errorf("--cluster-version: %w", err)
		}
		q.Cluster = cv
	}
	return nil
}

// writeSurvey writes an --all survey as -o says, and fails (exit 1) when a
// bundle cannot reach its channel's head or no cluster version reaches it.
func writeSurvey(out io.Writer, s graph.SurveyReport, format string) error {
	var err error
	if format == "json" {
		err = s.WriteJSON(out)
	} else {
		err = s.WriteText(out)
	}
	if err != nil {
		return err
	}
	if n := s.Problems(); n > 0 {
		msg := fmt.Sprintf("%d %s cannot reach the head of %s channel", n, plural(n, "bundle", "bundles"), plural(n, "its", "their"))
		if u := s.Unreachable(); u > 0 {
			msg += fmt.Sprintf("; no cluster version reaches %s", counted(u, "bundle", "bundles"))
		}
		return fault.Errorf(fault.Input, "%s", msg)
	}
	return nil
}

// writeUpgradePath writes an upgrade path as -o says, and fails (exit 1)
// when resolution fails or the cluster cannot take a step of it.
func writeUpgradePath(out io.Writer, p *graph.Path, q graph.UpgradeQuery, format string) error {
	var err error
	if format == "json" {
		err = p.WriteJSON(out)
	} else {
		err = p.WriteText(out, q.Options)
	}
	if err != nil {
		return err
	}
	if p.Err != nil {
		return fault.Errorf(fault.Input, "resolution fails: %w", p.Err)
	}
	if n := p.RefusedSteps(); n > 0 {
		return fault.Errorf(fault.Input, "a cluster at %s cannot take %s of the path", p.Cluster, counted(n, "step", "steps"))
	}
	return nil
}

// plural is one or many as n says.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// counted is "1 bundle", "2 bundles".
func counted(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }

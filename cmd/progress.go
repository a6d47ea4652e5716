package cmd

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/fbc-project/fbc/internal/progress"
)

// progressAnnotation marks a command that reads many files or images: its
// value is the word its progress line starts with ("validating").
const progressAnnotation = "fbc/progress"

// withProgress marks cmd as one that shows its progress as label.
func withProgress(cmd *cobra.Command, label string) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[progressAnnotation] = label
	return cmd
}

// Pace of the progress line: the counts are read every tick and drawn when
// they changed, at most every redraw (a steady line, no flicker); a count
// of one thing is shown only once the work has lasted a while.
const (
	progressRedraw = 100 * time.Millisecond
	progressQuiet  = 2 * time.Second
)

// progressTick is how often the counts are read (a variable for the tests,
// whose commands may finish within one tick).
var progressTick = 20 * time.Millisecond

// progressLine shows a command's progress on standard error as
// "LABEL: DONE/FOUND", with the seconds spent once they count. The counts
// come from a progress.Counter the libraries add to (files read, sources
// rendered, images pulled); both only grow, so the line never goes
// backwards. It is drawn only on a terminal that takes control sequences
// (useColor: not NO_COLOR, not TERM=dumb), never with --quiet: nothing
// reaches CI logs or pipes.
type progressLine struct {
	w       io.Writer
	label   string
	counter progress.Counter
	start   time.Time
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once

	// Guarded by termMu: what the command writes itself erases the line
	// first (besideProgress), and the next tick draws it again.
	drawn     bool
	shown     string
	lastDrawn time.Time
	over      bool // the command's output has begun on the terminal
}

// termMu orders what reaches the terminal: the progress line and the
// command's own writes.
var termMu sync.Mutex

// activeLine is the progress line on standard error, if any (termMu).
var activeLine *progressLine

// besideProgress is a command's standard output or error: each write first
// erases the progress line, which the next tick draws again below it; on a
// terminal, the command's output (ends) ends the progress line for good.
type besideProgress struct {
	w    io.Writer
	ends bool
}

func (b *besideProgress) Write(p []byte) (int, error) {
	termMu.Lock()
	defer termMu.Unlock()
	if l := activeLine; l != nil {
		l.hide()
		if b.ends {
			l.over = true
		}
	}
	return b.w.Write(p)
}

// Unwrap returns the stream (for isTerminal).
func (b *besideProgress) Unwrap() io.Writer { return b.w }

// rawWriter is w without the wrappers Run puts around the streams.
func rawWriter(w io.Writer) io.Writer {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

type progressKey struct{}

// startProgress starts the progress line of a command that shows one
// (withProgress), before it runs: its counter is in the command's context.
func startProgress(cmd *cobra.Command) {
	label := cmd.Annotations[progressAnnotation]
	if label == "" {
		return
	}
	if quiet, _ := cmd.Flags().GetBool("quiet"); quiet {
		return
	}
	w := rawWriter(cmd.ErrOrStderr())
	if !useColor(w) {
		return
	}
	l := &progressLine{w: w, label: label, start: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{})}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	cmd.SetContext(context.WithValue(ctx, progressKey{}, l))
	termMu.Lock()
	activeLine = l
	termMu.Unlock()
	go l.run()
}

func lineOf(cmd *cobra.Command) *progressLine {
	if cmd == nil || cmd.Context() == nil {
		return nil
	}
	l, _ := cmd.Context().Value(progressKey{}).(*progressLine)
	return l
}

// progressOf is the counter cmd's progress line shows; nil (which counts
// nothing) when no line is shown.
func progressOf(cmd *cobra.Command) *progress.Counter {
	if l := lineOf(cmd); l != nil {
		return &l.counter
	}
	return nil
}

// endProgress erases cmd's progress line for good: a command calls it
// before it prints its results on standard error, and Run once the command
// has returned.
func endProgress(cmd *cobra.Command) {
	if l := lineOf(cmd); l != nil {
		l.end()
	}
}

func (l *progressLine) run() {
	defer close(l.stopped)
	tick := time.NewTicker(progressTick)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
			l.draw(false)
		}
	}
}

// text is what the line says now; "" while there is nothing to show.
func (l *progressLine) text() string {
	done, found := l.counter.Counts()
	elapsed := time.Since(l.start)
	if found == 0 || (found < 2 && elapsed < progressQuiet) {
		return ""
	}
	s := fmt.Sprintf("%s: %d/%d", l.label, done, found)
	if elapsed >= progressQuiet {
		s += fmt.Sprintf(" (%ds)", int(elapsed.Seconds()))
	}
	return s
}

// draw redraws the line when its text changed and the last draw is old
// enough (or final, at the end, when something was drawn).
func (l *progressLine) draw(final bool) {
	text := l.text()
	termMu.Lock()
	defer termMu.Unlock()
	switch {
	case text == "" || l.over:
		return
	case final && l.shown == "":
		return // nothing was ever shown: do not flash the line at the end
	case !final && l.drawn && (text == l.shown || time.Since(l.lastDrawn) < progressRedraw):
		return
	}
	fmt.Fprintf(l.w, "\r\x1b[K%s", text)
	l.drawn, l.shown, l.lastDrawn = true, text, time.Now()
}

// hide erases the line (termMu held), to be drawn again at the next tick.
func (l *progressLine) hide() {
	if l.drawn {
		fmt.Fprint(l.w, "\r\x1b[K")
		l.drawn = false
	}
}

func (l *progressLine) end() {
	l.once.Do(func() {
		close(l.stop)
		<-l.stopped
		l.draw(true) // the last counts, complete
		termMu.Lock()
		defer termMu.Unlock()
		l.hide()
		if activeLine == l {
			activeLine = nil
		}
	})
}

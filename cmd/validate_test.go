package cmd

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// longline FILE MIB PREFIX writes PREFIX followed by 'a's up to MIB
	// mebibytes, with no newline: the huge single-line inputs of
	// validate_badinput.txtar, made when the test runs instead of committed.
	scriptCmds["longline"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: longline FILE MIB PREFIX")
		}
		mib, err := strconv.Atoi(args[1])
		if err != nil || mib <= 0 || mib > 512 {
			ts.Fatalf("longline: bad size %q (1..512 MiB)", args[1])
		}
		f, err := os.Create(ts.MkAbs(args[0]))
		ts.Check(err)
		w := bufio.NewWriterSize(f, 1<<20)
		_, err = w.WriteString(args[2])
		ts.Check(err)
		chunk := strings.Repeat("a", 1<<16)
		for n := len(args[2]); n < mib<<20; n += len(chunk) {
			_, err = w.WriteString(chunk[:min(len(chunk), mib<<20-n)])
			ts.Check(err)
		}
		ts.Check(w.Flush())
		ts.Check(f.Close())
	}
}

package cmd

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// noise FILE KIB writes a ConfigMap manifest holding KIB kibibytes of
	// incompressible text: bundles at OLM's size limit, made when the test
	// runs instead of committed.
	scriptCmds["noise"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: noise FILE KIB")
		}
		kib, err := strconv.Atoi(args[1])
		if err != nil || kib <= 0 || kib > 8192 {
			ts.Fatalf("noise: bad size %q (1..8192 KiB)", args[1])
		}
		rnd := rand.New(rand.NewPCG(uint64(kib), 14))
		raw := make([]byte, kib<<10*3/4)
		for i := range raw {
			raw[i] = byte(rnd.Uint32())
		}
		manifest := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: noise\ndata:\n  noise: %s\n", base64.StdEncoding.EncodeToString(raw))
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(manifest), 0o644))
	}
}

package imagetest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// ErrNoDistribution says the docker-registry binary is missing.
var ErrNoDistribution = errors.New("the docker-registry binary (CNCF Distribution, from the Debian package docker-registry) is missing: run `make test-deps`, which unpacks it into the tools cache (nothing is installed system-wide)")

// DistributionBinary finds docker-registry where scripts/test-deps.sh puts
// it, $FBC_TOOLS/docker-registry/docker-registry ($FBC_TOOLS defaults to
// fbc-tools in the user's cache directory, ~/.cache/fbc-tools), and then
// on $PATH. The empty string means it is in neither place.
func DistributionBinary() string {
	tools := os.Getenv("FBC_TOOLS")
	if tools == "" {
		if cache, err := os.UserCacheDir(); err == nil {
			tools = filepath.Join(cache, "fbc-tools")
		}
	}
	if tools != "" {
		bin := filepath.Join(tools, "docker-registry", "docker-registry")
		if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return bin
		}
	}
	if bin, err := exec.LookPath("docker-registry"); err == nil {
		return bin
	}
	return ""
}

// Distribution is a CNCF Distribution registry (the docker-registry binary)
// serving plain HTTP on a loopback address, with its config, storage and log
// under a directory of the caller's.
type Distribution struct {
	// Host is host:port.
	Host   string
	dir    string
	proc   *os.Process
	exited chan error
}

// StartDistribution starts docker-registry on ip (a loopback address) at a
// free port, storing under dir, and waits (up to 20s) until /v2/ answers.
// A non-empty htpasswd file turns on basic auth.
func StartDistribution(dir, ip, htpasswd string) (*Distribution, error) {
	bin := DistributionBinary()
	if bin == "" {
		return nil, ErrNoDistribution
	}
	if parsed := net.ParseIP(ip); parsed == nil || !parsed.IsLoopback() {
		return nil, fmt.Errorf("registry address %q: only loopback addresses", ip)
	}
	if err := os.MkdirAll(filepath.Join(dir, "storage"), 0o755); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	auth := ""
	if htpasswd != "" {
		if htpasswd, err = filepath.Abs(htpasswd); err != nil {
			return nil, err
		}
		auth = fmt.Sprintf("auth:\n  htpasswd:\n    realm: fbc-test\n    path: %s\n", htpasswd)
	}
	cfg := fmt.Sprintf(`version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
  secret: fbc-test-secret
%s`, filepath.Join(dir, "storage"), addr, auth)
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "serve", cfgPath)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &Distribution{Host: addr, dir: dir, proc: cmd.Process, exited: make(chan error, 1)}
	go func() { d.exited <- cmd.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return d, nil
			}
		}
		select {
		case err := <-d.exited:
			return nil, fmt.Errorf("docker-registry exited before answering (%v):\n%s", err, d.Log())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			d.Stop()
			return nil, fmt.Errorf("docker-registry did not answer on %s within 20s:\n%s", addr, d.Log())
		}
	}
}

// Log is what the registry wrote to its log so far.
func (d *Distribution) Log() string {
	data, _ := os.ReadFile(filepath.Join(d.dir, "log"))
	return string(data)
}

// Stop kills the registry and waits for it to exit; calling it again does
// nothing.
func (d *Distribution) Stop() {
	if d.proc == nil {
		return
	}
	d.proc.Kill()
	<-d.exited
	d.proc = nil
}

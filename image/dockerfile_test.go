package image

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDockerfileQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{"d e", `"d e"`},
		{`say "hi"`, `"say \"hi\""`},
		{"$HOME", `"\$HOME"`},
		{`a\b`, `"a\\b"`},
		{`trailing\`, `"trailing\\"`},
		{"it's", `"it's"`},
		{"ünïcode", `"ünïcode"`},
	} {
		if got := dockerfileQuote(tc.in); got != tc.want {
			t.Errorf("dockerfileQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestDockerfileRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dir    string
		opts   DockerfileOptions
		errSub string
	}{
		{"builder scratch", "catalog", DockerfileOptions{BuilderImage: "scratch"}, `invalid builder image "scratch"`},
		{"newline in value", "catalog", DockerfileOptions{Labels: map[string]string{"k": "a\nb"}}, "cannot hold line breaks"},
		{"carriage return in key", "catalog", DockerfileOptions{Labels: map[string]string{"k\r": "v"}}, "cannot hold line breaks"},
		{"empty key", "catalog", DockerfileOptions{Labels: map[string]string{"": "v"}}, "the key is empty"},
		{"configs label", "catalog", DockerfileOptions{Labels: map[string]string{ConfigsLabel: "/x"}}, "cannot be overridden"},
		{"space in image", "catalog", DockerfileOptions{BaseImage: "a b"}, "white space"},
		{"dollar in dir", "c$at", DockerfileOptions{}, "would interpret"},
		{"quote in dir", `c"at`, DockerfileOptions{}, "would interpret"},
		{"tab in dir", "c\tat", DockerfileOptions{}, "would interpret"},
		{"flag-like dir", "--chown=0", DockerfileOptions{}, "reads as a flag"},
		{"nested dir", "a/b", DockerfileOptions{}, "single path element"},
		{"dot", ".", DockerfileOptions{}, "single path element"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Dockerfile(tc.dir, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.errSub) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.errSub)
			}
		})
	}
}

func TestDockerfileTabInLabelValue(t *testing.T) {
	// A tab is ordinary white space inside double quotes.
	got, err := Dockerfile("catalog", DockerfileOptions{Labels: map[string]string{"k": "a\tb"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(got), "LABEL \"k\"=\"a\tb\"\n") {
		t.Fatalf("unexpected tail:\n%s", got)
	}
}

func TestWriteDockerfileCurrentDirectory(t *testing.T) {
	// "." names the working directory: the Dockerfile goes to its parent,
	// named after it, as for any other directory.
	parent := t.TempDir()
	dir := filepath.Join(parent, "cat")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	shown, err := WriteDockerfile(".", DockerfileOptions{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if shown != "../cat.Dockerfile" && shown != filepath.Join("..", "cat.Dockerfile") {
		t.Errorf("shown path = %q", shown)
	}
	data, err := os.ReadFile(filepath.Join(parent, "cat.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\nADD cat /configs\n") {
		t.Errorf("Dockerfile does not ADD cat:\n%s", data)
	}
	if _, err := WriteDockerfile("/", DockerfileOptions{}, false); err == nil || !strings.Contains(err.Error(), "no parent directory") {
		t.Errorf("WriteDockerfile(/) err = %v", err)
	}
}

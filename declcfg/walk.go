package declcfg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	ignore "github.com/sabhiram/go-gitignore"

	"github.com/fbc-project/fbc/declcfg/internal/tree"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/progress"
	"github.com/fbc-project/fbc/internal/safefs"
)

// IgnoreFile names the gitignore-style files that hide paths from loading.
// Each applies to its own directory and everything below it.
const IgnoreFile = ".indexignore"

// Rule ids of problems found while loading. They are stable: validate reports
// them as diagnostics and users filter on them.
const (
	RuleIO            = "io-error"
	RuleBinaryFile    = "binary-file"
	RuleNotUTF8       = "not-utf8"
	RuleSyntax        = "syntax"
	RuleEmptyDocument = "empty-document"
	RuleNotObject     = "not-object"
	RuleSymlink       = "symlink"
	RuleMissingSchema = "missing-schema"
	RuleFieldType     = "field-type"
	RuleDuplicateKey  = "duplicate-key"
	RuleKeyCase       = "key-case"
)

// LoadError is a problem with a catalog file, at a position.
type LoadError struct {
	Pos  Pos
	Rule string
	Msg  string
	// IO marks problems reading the file system, as opposed to bad content.
	IO bool
	// Warning marks problems that do not make the catalog invalid.
	Warning bool
	// Lost is set on a syntax error that made the loader skip a document:
	// what can be read of that document.
	Lost *LostDoc
	// Blank marks an empty-document made of blank lines or a lone "---",
	// no comment: readers that take only a file's first document, as opm's
	// templates do, never see it.
	Blank bool
}

// FaultKind is Run for a file that could not be read and Input for bad
// content.
func (e *LoadError) FaultKind() fault.Kind {
	if e.IO {
		return fault.Run
	}
	return fault.Input
}

func (e *LoadError) Error() string {
	if p := e.Pos.String(); p != "" {
		return p + ": " + e.Msg
	}
	return e.Msg
}

// Document is one blob-sized document of a file: its root node and where it
// starts.
type Document struct {
	Pos  Pos
	Node *Node

	// arena holds the nodes of a document File.Each parsed from a streamed
	// file, for Release.
	arena *docArena
}

// Identity reads the document's schema, package and name the way
// operator-registry's Meta reads them (keys matched without regard to
// case): what catalogd files a blob under. pkg is the package the blob
// belongs to, which for an olm.package blob is its name. Values that are
// not strings, and a document that is not a mapping, read as "".
func (d Document) Identity() (schema, pkg, name string) {
	n := deref(d.Node)
	if n == nil || n.Kind != MappingNode {
		return "", "", ""
	}
	var got [3]bool
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if k.Kind != ScalarNode || v == nil || v.Kind != ScalarNode || v.Tag != "!!str" {
			continue
		}
		for j, key := range [...]string{"schema", "package", "name"} {
			if !got[j] && strings.EqualFold(k.Value, key) {
				got[j] = true
				switch j {
				case 0:
					schema = v.Value
				case 1:
					pkg = v.Value
				case 2:
					name = v.Value
				}
			}
		}
	}
	if schema == SchemaPackage {
		pkg = name
	}
	return schema, pkg, name
}

// Release says that the caller is done with the document's tree: no node
// of it, and no slice of a node's children, will be read again. The memory
// of the trees of a streamed file's documents (WalkOptions.Stream) is then
// used again for the documents parsed after it, so that a reader that
// checks each document and keeps nothing of its tree (validate) allocates a
// few documents' nodes instead of the catalog's. Values (strings) stay
// valid. Releasing is optional (the memory is collected either way), at
// most once per document, and does nothing for other documents.
func (d Document) Release() {
	if d.arena != nil && d.arena.refs.Add(-1) == 0 {
		d.arena.arena.Release()
	}
}

// docArena is the arena of the documents parsed from one part of a stream,
// given back when the last of them is released.
type docArena struct {
	arena tree.Arena
	refs  atomic.Int32
}

// File is a parsed catalog file.
type File struct {
	Path   string
	Docs   []Document
	Errors []*LoadError

	// buf is the buffer the file was read into, for WalkOptions.Reuse.
	buf []byte
	// pending is the text of a file walked with WalkOptions.Stream, until
	// Each parses it.
	pending *pendingText
}

// pendingText is a file read but not parsed yet (WalkOptions.Stream), or,
// with read set, not read yet either (WalkOptions.ReadInEach).
type pendingText struct {
	data   []byte
	read   func() ([]byte, *LoadError)
	borrow bool
	inTree bool
}

// Each hands fn the file's documents in order. A file walked with
// WalkOptions.Stream is parsed here, a document at a time: each document's
// tree is made just before fn sees it, so a reader that keeps nothing of it
// holds one document's tree at a time instead of the file's. Errors is
// complete once Each returns. Each parses a streamed file once; later calls
// find no documents.
func (f *File) Each(fn func(Document)) {
	p := f.pending
	if p == nil {
		for _, d := range f.Docs {
			fn(d)
		}
		return
	}
	f.pending = nil
	data := p.data
	if p.read != nil {
		var problem *LoadError
		if data, problem = p.read(); problem != nil {
			f.Errors = append(f.Errors, problem)
			return
		}
	}
	f.parse(data, p.borrow, true, fn)
	if p.inTree {
		addIgnoreHints(f)
	}
}

// WalkOptions tunes walking.
type WalkOptions struct {
	// Concurrency is the number of files parsed at once (default: the number
	// of CPUs). Files are still delivered in lexical path order.
	Concurrency int
	// MaxFileSize rejects larger files (default 2 GiB).
	MaxFileSize int64
	// Ahead bounds the files read and parsed before fn takes them (default
	// twice Concurrency). A caller whose fn hands each file to workers of
	// its own and returns at once (validate) gains nothing from more than
	// Concurrency: parsed files would only wait, each holding its tree.
	Ahead int
	// Borrow lets long scalar values of the parsed documents share the
	// bytes read from the file instead of copying them: less to allocate
	// and collect, for a reader that drops each file's documents before the
	// next (a borrowed value kept longer keeps its whole file in memory).
	// DecodeDocument's blobs hold copies either way.
	Borrow bool
	// Reuse reads later files into the buffers of files fn is done with,
	// instead of allocating one per file: for a reader that uses nothing
	// of a File (its nodes, their values, which Borrow shares with the
	// buffer) once fn has returned.
	Reuse bool
	// Stream hands fn each file read but not parsed: File.Each parses it a
	// document at a time, on whichever goroutine calls it, so that parsing
	// runs where the documents are used and only one document's tree need
	// be alive per file (validate checks each document and keeps a slim
	// copy). The documents and errors are those ParseFile finds. With
	// Reuse, fn must parse the file (Each) before it returns: its bytes
	// then go to a later file.
	Stream bool
	// ReadInEach, with Stream, leaves the reading to File.Each as well:
	// the walk lists the files and checks what they are (regular, within
	// MaxFileSize), and each is read on the goroutine that parses it, just
	// before. Files waiting for fn then hold no text (validate's peak
	// memory fell 4-6%). A file that cannot be read gets its io-error from
	// Each. Reuse does not apply.
	ReadInEach bool
	// Progress, when set, counts the files: found when a walk has listed
	// them, done as fn returns for each.
	Progress *progress.Counter
}

func (o WalkOptions) withDefaults() WalkOptions {
	if o.Concurrency <= 0 {
		o.Concurrency = runtime.GOMAXPROCS(0)
	}
	if o.Ahead <= 0 {
		o.Ahead = 2 * o.Concurrency
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = 2 << 30
	}
	return o
}

// WalkPath walks a catalog named on the command line: a directory tree, a
// single file, or "-" for standard input. fn sees each file in lexical order.
func WalkPath(ctx context.Context, p string, stdin io.Reader, opts WalkOptions, fn func(*File) error) error {
	if p == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		max := opts.withDefaults().MaxFileSize
		opts.Progress.Found(1)
		defer opts.Progress.Done(1)
		data, err := readStream(ctx, func() ([]byte, error) { return readLimited(stdin, 0, max) })
		switch {
		case errors.Is(err, errTooLarge):
			return fn(&File{Path: "-", Errors: []*LoadError{{Pos: Pos{File: "-"}, Rule: RuleIO, IO: true,
				Msg: fmt.Sprintf("standard input is larger than the %d-byte limit", max)}}})
		case err != nil:
			return fmt.Errorf("reading standard input: %w", err)
		}
		return fn(ParseFile("-", data))
	}
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	switch {
	case st.Mode().IsRegular():
		dir, base := filepath.Split(p)
		if dir == "" {
			dir = "."
		}
		return walkFiles(ctx, safefs.DirFS(dir), []walkItem{{name: base, display: p}}, opts.withDefaults(), fn)
	case !st.IsDir():
		opts.Progress.Found(1)
		defer opts.Progress.Done(1)
		return fn(readSpecial(ctx, p, opts.withDefaults()))
	}
	// A tree is read through an fs.FS that never blocks on a special file,
	// and its symbolic links must stay inside it.
	tree, err := safefs.NewTree(p)
	if err != nil {
		return err
	}
	items, err := listFiles(safefs.DirFS(p), p, tree)
	if err != nil {
		return err
	}
	return walkFiles(ctx, safefs.DirFS(p), items, opts.withDefaults(), fn)
}

// readSpecial reads a path named on the command line that is neither a
// directory nor a regular file. A pipe this process was handed (fbc
// validate <(opm render ...)) is read like standard input, until an
// interrupt; a named pipe, socket or device on disk is refused, since
// opening a FIFO that nobody writes to would wait forever.
func readSpecial(ctx context.Context, p string, opts WalkOptions) *File {
	ioErr := func(msg string) *File {
		return &File{Path: p, Errors: []*LoadError{{Pos: Pos{File: p}, Rule: RuleIO, IO: true, Msg: msg}}}
	}
	f, err := safefs.OpenInput(p)
	var nre *safefs.NotRegularError
	switch {
	case errors.As(err, &nre):
		return ioErr(fmt.Sprintf("not a regular file (%s): a catalog is read from files, directories and standard input (-)", safefs.TypeWords(nre.Mode)))
	case err != nil:
		return ioErr(ioMessage(err))
	}
	data, err := safefs.ReadAll(ctx, f, opts.MaxFileSize)
	switch {
	case errors.Is(err, safefs.ErrTooLarge):
		return ioErr(fmt.Sprintf("file is larger than the %d-byte limit", opts.MaxFileSize))
	case err != nil:
		return ioErr(ioMessage(err))
	}
	if opts.Stream {
		return &File{Path: p, pending: &pendingText{data: data, borrow: opts.Borrow}}
	}
	return parseFile(p, data, opts.Borrow)
}

type walkItem struct {
	name    string // path within the fs.FS
	display string // path shown to users
	err     *LoadError
	// inTree is set for files found by walking a directory: only those can
	// be hidden with an .indexignore file.
	inTree bool
}

// WalkFS walks every file of fsys that no .indexignore hides. prefix is
// joined to each file's path to name it in positions.
func WalkFS(ctx context.Context, fsys fs.FS, prefix string, opts WalkOptions, fn func(*File) error) error {
	items, err := listFiles(fsys, prefix, nil)
	if err != nil {
		return err
	}
	return walkFiles(ctx, fsys, items, opts.withDefaults(), fn)
}

type ignoreScope struct {
	dir     string // "" for the root
	matcher *ignore.GitIgnore
}

func (s ignoreScope) matches(p string, isDir bool) bool {
	rel := p
	if s.dir != "" {
		rel = strings.TrimPrefix(p, s.dir+"/")
	}
	if isDir {
		return s.matcher.MatchesPath(rel) || s.matcher.MatchesPath(rel+"/")
	}
	return s.matcher.MatchesPath(rel)
}

func displayPath(prefix, p string) string {
	if prefix == "" {
		return p
	}
	return filepath.Join(prefix, filepath.FromSlash(p))
}

// listFiles lists the files of fsys that no .indexignore hides. tree, when
// set, is the directory fsys reads: a symbolic link must lead inside it.
// Special files (sockets, pipes, devices), and links to them, are not
// catalog content and are left out.
func listFiles(fsys fs.FS, prefix string, tree *safefs.Tree) ([]walkItem, error) {
	var items []walkItem
	var scopes []ignoreScope
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			items = append(items, walkItem{name: p, display: displayPath(prefix, p), err: &LoadError{
				Pos: Pos{File: displayPath(prefix, p)}, Rule: RuleIO, IO: true, Msg: ioMessage(err)}})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		// Leave the scopes of directories we have walked out of.
		for len(scopes) > 0 {
			top := scopes[len(scopes)-1].dir
			if top == "" || strings.HasPrefix(p, top+"/") {
				break
			}
			scopes = scopes[:len(scopes)-1]
		}
		if p != "." {
			for _, s := range scopes {
				if s.matches(p, d.IsDir()) {
					if d.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
			}
		}
		if d.IsDir() {
			scope, err := readIgnoreFile(fsys, p)
			if err != nil && !dirUnreadable(fsys, p) {
				items = append(items, walkItem{name: path.Join(p, IgnoreFile), display: displayPath(prefix, path.Join(p, IgnoreFile)), err: &LoadError{
					Pos: Pos{File: displayPath(prefix, path.Join(p, IgnoreFile))}, Rule: RuleIO, IO: true, Msg: ioMessage(err)}})
			} else if scope != nil {
				scopes = append(scopes, *scope)
			}
			return nil
		}
		if d.Name() == IgnoreFile {
			return nil
		}
		item := walkItem{name: p, display: displayPath(prefix, p), inTree: true}
		if d.Type()&fs.ModeSymlink != 0 {
			var outside *safefs.OutsideError
			if tree != nil {
				_, err := tree.Resolve(filepath.Join(prefix, filepath.FromSlash(p)))
				errors.As(err, &outside)
			}
			st, err := fs.Stat(fsys, p)
			switch {
			case err == nil && st.IsDir():
				item.err = &LoadError{Pos: Pos{File: item.display}, Rule: RuleSymlink,
					Msg: fmt.Sprintf("symbolic link to a directory: catalogs cannot contain them (opm fails on them too); copy the directory or list the link in %s", IgnoreFile)}
			case outside != nil:
				item.err = &LoadError{Pos: Pos{File: item.display}, Rule: RuleSymlink,
					Msg: fmt.Sprintf("symbolic link to %s, which is outside the catalog directory %s: a catalog is read (and built into images) only from what it holds; copy the file in instead of linking to it", outside.Target, prefix)}
			case err != nil:
				item.err = &LoadError{Pos: Pos{File: item.display}, Rule: RuleSymlink,
					Msg: fmt.Sprintf("symbolic link cannot be followed (%s); remove it or list it in %s", ioMessage(err), IgnoreFile)}
			case !st.Mode().IsRegular():
				return nil // a link to a special file: not catalog content either
			}
		} else if !d.Type().IsRegular() {
			return nil // sockets, pipes, devices: not catalog content
		}
		items = append(items, item)
		return nil
	})
	return items, err
}

// dirUnreadable reports whether a directory cannot be listed: WalkDir then
// reports it itself, and its .indexignore cannot be read for the same reason,
// which is not a second problem.
func dirUnreadable(fsys fs.FS, dir string) bool {
	_, err := fs.ReadDir(fsys, dir)
	return err != nil
}

func readIgnoreFile(fsys fs.FS, dir string) (*ignoreScope, error) {
	data, err := fs.ReadFile(fsys, path.Join(dir, IgnoreFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	scopeDir := dir
	if dir == "." {
		scopeDir = ""
	}
	return &ignoreScope{dir: scopeDir, matcher: ignore.CompileIgnoreLines(lines...)}, nil
}

func ioMessage(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("cannot %s: %v", pe.Op, pe.Err)
	}
	return err.Error()
}

// walkFiles parses files with a bounded worker pool and hands them to fn in
// order. At most 2×Concurrency parsed files wait in memory.
func walkFiles(ctx context.Context, fsys fs.FS, items []walkItem, opts WalkOptions, fn func(*File) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts.Progress.Found(len(items))
	results := make([]chan *File, len(items))
	for i := range results {
		results[i] = make(chan *File, 1)
	}
	window := make(chan struct{}, opts.Ahead)
	jobs := make(chan int)
	go func() {
		defer close(jobs)
		for i := range items {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	// With Reuse, buffers go round: at most one per file in flight (the
	// window), and those fn is done with, kept until a read takes them.
	var free chan []byte
	if opts.Reuse {
		free = make(chan []byte, opts.Ahead)
	}
	for range opts.Concurrency {
		go func() {
			for i := range jobs {
				var buf []byte
				select {
				case buf = <-free:
				default:
				}
				results[i] <- readAndParse(fsys, items[i], opts, buf)
			}
		}()
	}
	for i := range items {
		var f *File
		select {
		case f = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		err := fn(f)
		opts.Progress.Done(1)
		if free != nil && f.buf != nil {
			select {
			case free <- f.buf:
			default:
			}
		}
		<-window
		if err != nil {
			return err
		}
	}
	return nil
}

// readAndParse reads and parses one file; buf, when not nil, is a buffer
// to read a regular file into.
func readAndParse(fsys fs.FS, it walkItem, opts WalkOptions, buf []byte) *File {
	maxSize := opts.MaxFileSize
	if it.err != nil {
		return &File{Path: it.display, Errors: []*LoadError{it.err}}
	}
	ioErr := func(msg string) *File {
		return &File{Path: it.display, Errors: []*LoadError{{Pos: Pos{File: it.display}, Rule: RuleIO, IO: true, Msg: msg}}}
	}
	st, err := fs.Stat(fsys, it.name)
	if err != nil {
		return ioErr(ioMessage(err))
	}
	if !st.Mode().IsRegular() {
		// Listed as a file, it has become something else since: opening
		// a FIFO could wait forever.
		return ioErr(fmt.Sprintf("not a regular file (%s)", safefs.TypeWords(st.Mode())))
	}
	if st.Size() > maxSize {
		return ioErr(fmt.Sprintf("file is %d bytes, larger than the %d-byte limit", st.Size(), maxSize))
	}
	if opts.Stream && opts.ReadInEach {
		size := st.Size()
		read := func() ([]byte, *LoadError) {
			data, err := readFile(fsys, it.name, nil, size, maxSize)
			if err != nil {
				return nil, readError(it.display, err, maxSize)
			}
			return data, nil
		}
		return &File{Path: it.display, pending: &pendingText{read: read, borrow: opts.Borrow, inTree: it.inTree}}
	}
	data, err := readFile(fsys, it.name, buf, st.Size(), maxSize)
	if err != nil {
		return &File{Path: it.display, Errors: []*LoadError{readError(it.display, err, maxSize)}}
	}
	if opts.Stream {
		f := &File{Path: it.display, pending: &pendingText{data: data, borrow: opts.Borrow, inTree: it.inTree}}
		if opts.Reuse {
			f.buf = data
		}
		return f
	}
	f := parseFile(it.display, data, opts.Borrow)
	if opts.Reuse {
		f.buf = data
	}
	if it.inTree {
		addIgnoreHints(f)
	}
	return f
}

// readError is the problem of a file that could not be read whole.
func readError(name string, err error, limit int64) *LoadError {
	msg := ioMessage(err)
	if errors.Is(err, errTooLarge) {
		msg = fmt.Sprintf("file is larger than the %d-byte limit", limit)
	}
	return &LoadError{Pos: Pos{File: name}, Rule: RuleIO, IO: true, Msg: msg}
}

// addIgnoreHints offers the .indexignore way out of the problems that
// hiding the file solves. It is for files found in a directory tree only:
// standard input, a file named on the command line, a template or an image
// map cannot be hidden that way.
func addIgnoreHints(f *File) {
	for _, e := range f.Errors {
		switch e.Rule {
		case RuleBinaryFile:
			e.Msg += ": move it out of the catalog tree or list it in " + IgnoreFile
		case RuleEmptyDocument:
			e.Msg += " or list the file in " + IgnoreFile
		}
	}
}

var errTooLarge = errors.New("input too large")

// readFile reads a file, into buf when it is not nil.
func readFile(fsys fs.FS, name string, buf []byte, sizeHint, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimitedInto(f, buf, sizeHint, limit)
}

// readLimited reads r to its end, at most limit bytes (errTooLarge beyond).
// A binary input is read only until its first NUL byte: ParseFile rejects
// it from what was read, and /dev/zero is not read forever.
func readLimited(r io.Reader, sizeHint, limit int64) ([]byte, error) {
	return readLimitedInto(r, nil, sizeHint, limit)
}

// readLimitedInto is readLimited into into's memory when it is large
// enough.
func readLimitedInto(r io.Reader, into []byte, sizeHint, limit int64) ([]byte, error) {
	want := int(min(sizeHint, limit)) + bytes.MinRead
	if cap(into) < want {
		// A buffer that goes round (WalkOptions.Reuse) and is too small
		// at least doubles, so that it soon fits most files.
		into = make([]byte, 0, max(want, 2*cap(into)))
	}
	buf := bytes.NewBuffer(into[:0])
	n, err := buf.ReadFrom(&binaryStop{r: io.LimitReader(r, limit+1)})
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, errTooLarge
	}
	return buf.Bytes(), nil
}

// readStream runs read, which may block forever on standard input or a
// pipe, and returns early when ctx ends. The read itself cannot be
// interrupted, so its goroutine ends only with the input or the process.
func readStream(ctx context.Context, read func() ([]byte, error)) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := read()
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// binaryStop ends a read after a chunk that holds a NUL byte within the
// first 64 KiB, the window ParseFile looks at to call a file binary.
type binaryStop struct {
	r    io.Reader
	seen int
	stop bool
}

func (b *binaryStop) Read(p []byte) (int, error) {
	if b.stop {
		return 0, io.EOF
	}
	n, err := b.r.Read(p)
	// Only the window is looked at: the first read is often the whole file.
	if window := 64<<10 - b.seen; window > 0 && bytes.IndexByte(p[:min(n, window)], 0) >= 0 {
		b.stop = true
	}
	b.seen += n
	return n, err
}

// ParseFile splits a file's content into documents. Problems become the
// file's Errors; a syntax error skips the document it is in (its Lost says
// what of it can be read) and the documents after it are read.
func ParseFile(name string, data []byte) *File { return parseFile(name, data, false) }

// parseFile is ParseFile; with borrow, long scalar values of the documents
// share data's memory (borrowString), which must then not change.
func parseFile(name string, data []byte, borrow bool) *File {
	f := &File{Path: name}
	f.parse(data, borrow, false, func(d Document) { f.Docs = append(f.Docs, d) })
	return f
}

// parse reads data's documents, handing each object to each and adding the
// problems to f.Errors. With stream, a YAML stream whose documents can be
// read apart (splittable) is parsed a document at a time, each handed over
// as soon as it is read; the documents and errors are those of the whole
// stream's parse.
func (f *File) parse(data []byte, borrow, stream bool, each func(Document)) {
	name := f.Path
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	valid := utf8.Valid(data) // the usual case, checked a word at a time
	if off, ok := binaryOffset(data, valid); ok {
		line, _ := lineCol(data, off)
		f.Errors = append(f.Errors, &LoadError{Pos: Pos{File: name, Line: line}, Rule: RuleBinaryFile,
			Msg: fmt.Sprintf("not a text file (binary byte at offset %d); a catalog holds only JSON or YAML", off)})
		return
	}
	isJSON := isJSONStream(data)
	if !valid {
		// Text in another encoding (a Latin-1 letter): opm's JSON reader
		// turns each such byte into U+FFFD, and its YAML reader rejects
		// the file.
		off, _ := invalidRune(data, false)
		line, col := lineCol(data, off)
		e := &LoadError{Pos: Pos{File: name, Line: line, Col: col}, Rule: RuleNotUTF8}
		if isJSON {
			e.Warning = true
			e.Msg = fmt.Sprintf("byte 0x%02X is not UTF-8; opm reads it as U+FFFD, losing the character: save the file as UTF-8", data[off])
			f.Errors = append(f.Errors, e)
		} else {
			e.Msg = fmt.Sprintf("byte 0x%02X is not UTF-8; opm rejects the file (yaml: invalid UTF-8): save it as UTF-8", data[off])
			f.Errors = append(f.Errors, e)
			return
		}
	}
	addRootIn := func(n *Node, a *docArena) {
		pos := Pos{File: name, Line: n.Line, Col: n.Column}
		if n.Kind == AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if n.Kind != MappingNode {
			f.Errors = append(f.Errors, &LoadError{Pos: pos, Rule: RuleNotObject,
				Msg: fmt.Sprintf("document is %s; every catalog document must be an object with a \"schema\" field", KindName(n))})
			Document{arena: a}.Release() // handed to no one
			return
		}
		each(Document{Pos: pos, Node: n, arena: a})
	}
	addRoot := func(n *Node) { addRootIn(n, nil) }
	var skips []skipped
	if isJSON {
		skips = parseJSONRecovering(data, borrow, addRoot)
	} else {
		// opm decodes every chunk its reader (SplitManifests) cuts, and a
		// comment-only one as an empty object that fails its schema check,
		// while yaml.v3 attaches the comments to a neighbouring document
		// or drops them: the text itself says which chunks are empty.
		split := SplitDocuments(data, SplitManifests)
		for _, b := range split.Bad {
			f.Errors = append(f.Errors, &LoadError{Pos: Pos{File: name, Line: b.Line, Col: 1}, Rule: RuleSyntax,
				Msg: "a line starting with '---' separates documents and may hold only a comment after it (opm: invalid Yaml document separator); move the rest to the next line"})
		}
		for _, c := range split.Chunks {
			if c.Content > 0 {
				continue
			}
			what, holds, line := "document", "holds only comments", c.Comment
			if split.Separators == 0 {
				what = "file"
			}
			switch {
			case c.Comment > 0:
			case c.Marker:
				holds, line = "after this '---' is empty", c.Line
			case len(bytes.TrimSpace(data[c.Start:c.End])) > 0:
				holds, line = "holds only '...' (document end) lines", c.Line
			default:
				holds, line = "holds only blank lines", c.Line
			}
			msg := what + " " + holds + "; opm rejects it (object '' is missing root schema field): remove it"
			f.Errors = append(f.Errors, &LoadError{Pos: Pos{File: name, Line: line}, Rule: RuleEmptyDocument, Msg: msg, Blank: c.Comment == 0})
		}
		if stream && splittable(data) {
			skips = parseYAMLEach(data, borrow, addRootIn)
		} else {
			var docs []yamlDoc
			docs, skips = parseYAMLRecovering(data, borrow)
			for _, d := range docs {
				if !d.Empty { // blank documents, such as the one before a leading "---", carry nothing
					addRoot(d.Node)
				}
			}
		}
	}
	for _, s := range skips {
		f.Errors = append(f.Errors, s.loadError(name))
	}
}

// binaryOffset finds a NUL byte in the first 64 KiB, or invalid UTF-8 in a
// first 64 KiB that also holds a control character no text has (a gzip or
// image header): text in another encoding, such as a Latin-1 letter in a
// description, is not binary (parse reports it as not-utf8).
// valid says whether all of data is UTF-8.
func binaryOffset(data []byte, valid bool) (int, bool) {
	head := data[:min(len(data), 64<<10)]
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return i, true
	}
	if valid {
		return 0, false
	}
	off, bad := invalidRune(head, len(head) < len(data))
	if !bad || !hasControl(head) {
		return 0, false
	}
	return off, true
}

// lineCol is the 1-based line and column (in bytes) of offset off of data.
func lineCol(data []byte, off int) (line, col int) {
	return bytes.Count(data[:off], []byte("\n")) + 1, off - bytes.LastIndexByte(data[:off], '\n')
}

// hasControl reports whether text holds a C0 control character other than
// tab, line feed and carriage return, which neither JSON nor YAML allows.
func hasControl(text []byte) bool {
	for _, c := range text {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return true
		}
	}
	return false
}

// invalidRune finds the first byte of head that is not UTF-8, rune by rune;
// cut says that head is the start of a longer text, so that a rune it cuts
// short at its end is no fault.
func invalidRune(head []byte, cut bool) (int, bool) {
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 {
			if len(head)-i < utf8.UTFMax && cut {
				return 0, false // a rune cut by the 64 KiB window
			}
			return i, true
		}
		i += size
	}
	return 0, false
}

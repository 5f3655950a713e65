package docgen_test

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/betplan/betplan/internal/docgen"
)

// root is the module's root, from this package's directory.
const root = "../.."

// TestDocsLinksResolve: every relative link of the README, CONTRIBUTING.md
// and the docs (the command reference included) reaches a file of the
// repository, and every #anchor a heading of its page, as GitHub makes
// them: a page moved or a heading renamed breaks no reader's link.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	files, err := docgen.MarkdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := os.ReadDir(root + "/" + docgen.CommandsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		files = append(files, docgen.CommandsDir+"/"+p.Name())
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(file string) (map[string]bool, error) {
		if a, ok := anchors[file]; ok {
			return a, nil
		}
		src, err := os.ReadFile(root + "/" + file)
		if err != nil {
			return nil, err
		}
		anchors[file] = headingAnchors(string(src))
		return anchors[file], nil
	}
	links := 0
	for _, file := range files {
		src, err := os.ReadFile(root + "/" + file)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range proseLines(string(src)) {
			for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				where := fmt.Sprintf("%s:%d: (%s)", file, n, target)
				page, anchor, _ := strings.Cut(target, "#")
				dest := file
				if page != "" {
					dest = path.Clean(path.Join(path.Dir(file), page))
					if _, err := os.Stat(root + "/" + dest); err != nil {
						t.Errorf("%s: no such file %s", where, dest)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				a, err := anchorsOf(dest)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if !a[anchor] {
					t.Errorf("%s: %s has no heading #%s", where, dest, anchor)
				}
			}
		}
	}
	if links < 50 {
		t.Errorf("only %d links found: is the pattern still right?", links)
	}
}

var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// proseLines are a Markdown file's lines outside fenced code, by number.
func proseLines(src string) map[int]string {
	lines := map[int]string{}
	fenced := false
	for i, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines[i+1] = l
		}
	}
	return lines
}

// headingAnchors are the anchors GitHub gives a page's headings: lower
// case, punctuation but '-' and '_' dropped, spaces made '-', a repeated
// one numbered.
func headingAnchors(src string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	fenced := false
	for _, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(l, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r), unicode.IsNumber(r), r == '_', r == '-':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		slug := b.String()
		if n := count[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		count[slug]++
	}
	return anchors
}

// TestReadmeMapsEveryPage: a reader who only reads the README finds every
// page of docs/ (and the command reference) from it.
func TestReadmeMapsEveryPage(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(root + "/README.md")
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, m := range markdownLink.FindAllStringSubmatch(string(readme), -1) {
		page, _, _ := strings.Cut(m[1], "#")
		linked[path.Clean(page)] = true
	}
	pages, err := os.ReadDir(root + "/docs")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"CONTRIBUTING.md", docgen.CommandsDir + "/README.md"}
	for _, p := range pages {
		if strings.HasSuffix(p.Name(), ".md") {
			want = append(want, "docs/"+p.Name())
		}
	}
	for _, w := range want {
		if !linked[w] {
			t.Errorf("README.md does not link %s", w)
		}
	}
}

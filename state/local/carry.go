package local

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/betplan/betplan/state"
)

// An earlier betplan worked a service's identity out otherwise (0.0.0.0,
// ::, or a name for this machine, were kept as spelled), so a journal it
// kept for a service can sit under another key than the service's
// identity gives now. Such a journal names its service inside (its init
// or service record): the plan's own is moved under the key of now by
// the run that takes its lock, and until then every plan of the account
// counts it, so no period's commitments drop out of the limits.

// keyedElsewhere are the journals of the state dir kept for service under
// another key than its own, by plan name, sorted.
func (l Layout) keyedElsewhere(service string) (map[string][]string, error) {
	own := "." + l.serviceKey(service) + journalSuffix
	paths, err := filepath.Glob(filepath.Join(l.Dir, "*.????????????"+journalSuffix))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, p := range paths {
		base := filepath.Base(p)
		if strings.HasSuffix(base, own) {
			continue
		}
		name := strings.TrimSuffix(base, journalSuffix)
		name = name[:len(name)-13] // .<key>
		if strings.Contains(name, ".") {
			continue
		}
		if kept := journalService(p); kept != "" && state.ServiceIdentity(kept) == service {
			out[name] = append(out[name], p)
		}
	}
	return out, nil
}

// journalService is the service a journal file names: its first record's
// (init), else its last service record's; "" when it names none or does
// not read.
func journalService(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	raw, complete, over, err := readLine(bufio.NewReader(f))
	f.Close()
	if err != nil || over || !complete {
		return ""
	}
	var e struct {
		Op      string `json:"op"`
		Service string `json:"service"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Service != "" {
		return e.Service
	}
	records, err := ReadLog(path)
	if err != nil {
		return ""
	}
	service := ""
	for _, r := range records {
		if json.Unmarshal(r, &e) == nil && e.Op == "service" {
			service = e.Service
		}
	}
	return service
}

// carryOver moves the plan's journal kept for the service under another
// key into the journal of the key of now, when the plan has none there
// yet, and says so ("" when there was nothing to move). Two such journals
// are refused: which one holds the plan's bets is for a person to say.
func (l Layout) carryOver(planName, baseURL string) (string, error) {
	if l.Rehearsal {
		return "", nil
	}
	now := l.JournalPath(planName, baseURL)
	if _, err := os.Lstat(now); err == nil {
		return "", nil
	}
	service := state.ServiceIdentity(baseURL)
	elsewhere, err := l.keyedElsewhere(service)
	if err != nil {
		return "", err
	}
	old := elsewhere[planName]
	switch len(old) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", &state.BadJournalError{Path: now, Reason: fmt.Sprintf("plan %s has %d journals for %s (%s), kept under earlier spellings of it: merge them by hand before any run", planName, len(old), service, strings.Join(old, ", "))}
	}
	if err := os.Rename(old[0], now); err != nil {
		return "", fmt.Errorf("move journal %s under the service's identity: %w", old[0], err)
	}
	if err := syncDir(l.Dir); err != nil {
		return "", err
	}
	return fmt.Sprintf("journal %s, kept for %s as an earlier betplan spelled it, moved into %s", old[0], service, now), nil
}

package follow

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
)

// lookupService is a notification list whose pages may fail, with label
// look-ups: a label names its notification as "n<id>".
type lookupService struct {
	listService
	pageErr error
	labels  []string         // the labels looked up, in order
	missing map[string]bool  // labels the service no longer lists
	failing map[string]error // labels whose look-up fails
}

func (s *lookupService) ListNotifications(ctx context.Context, o apiclient.ListNotificationsOptions) (*apiclient.Page[apiclient.Notification], error) {
	if s.pageErr != nil {
		s.pages = append(s.pages, o.Page)
		return nil, s.pageErr
	}
	return s.listService.ListNotifications(ctx, o)
}

func (s *lookupService) NotificationsByLabel(_ context.Context, label string) ([]apiclient.Notification, error) {
	s.labels = append(s.labels, label)
	if err := s.failing[label]; err != nil {
		return nil, err
	}
	if s.missing[label] {
		return nil, nil
	}
	var id int64
	_, _ = fmt.Sscanf(label, "n%d", &id)
	return []apiclient.Notification{{ID: apiclient.Int(id), Label: label}}, nil
}

func opens(ids ...int64) ([]Open, Ours) {
	var open []Open
	ours := Ours{}
	for _, id := range ids {
		open = append(open, Open{ID: id, Label: fmt.Sprintf("n%d", id)})
		ours[id] = true
	}
	return open, ours
}

// A page that cannot be read is logged and each open bet is looked up by
// its label instead: found, no longer listed, or a failed look-up, each
// said of its bet.
func TestPollFallsBackToLabelLookUps(t *testing.T) {
	svc := &lookupService{pageErr: errors.New("503"), missing: map[string]bool{"n2": true}, failing: map[string]error{"n3": errors.New("timeout")}}
	svc.add(3)
	var logs []string
	r := &Reader{Svc: svc, Logf: func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }}
	for id := int64(1); id <= 3; id++ {
		r.Index.Created(id)
	}
	open, ours := opens(1, 2, 3)
	reads, err := r.Poll(context.Background(), open, ours)
	require.NoError(t, err)
	assert.Equal(t, []string{"poll: 503"}, logs)
	assert.Equal(t, []string{"n1", "n2", "n3"}, svc.labels)
	assert.Equal(t, []Lookup{
		{Open: 0, ID: 1, Listed: true},
		{Open: 1, ID: 2},
		{Open: 2, ID: 3, Err: svc.failing["n3"]},
	}, reads.Lookups)
	assert.Len(t, reads.Seen, 1)
	assert.NotNil(t, reads.Seen[1])
}

// A failure that ends the command (a refused token) ends the poll at
// once: no look-up stands in.
func TestPollEndsOnWhatEndsTheCommand(t *testing.T) {
	refused := errors.New("401")
	svc := &lookupService{pageErr: refused}
	svc.add(2)
	r := &Reader{Svc: svc, Ends: func(err error) error {
		if errors.Is(err, refused) {
			return fmt.Errorf("token refused: %w", err)
		}
		return nil
	}}
	r.Index.Created(1)
	r.Index.Created(2)
	open, ours := opens(1, 2)
	reads, err := r.Poll(context.Background(), open, ours)
	require.ErrorIs(t, err, refused)
	assert.Empty(t, svc.labels)
	assert.Empty(t, reads.Lookups)
}

// Many open bets no page has shown yet (known from the journal) are found
// by reading the list from its head, a hundred a call, not by a look-up
// each.
func TestPollScansFromTheHeadForManyUnknownBets(t *testing.T) {
	svc := &lookupService{}
	svc.add(150)
	r := &Reader{Svc: svc}
	var ids []int64
	for id := int64(101); id <= 150; id++ {
		ids = append(ids, id)
	}
	open, ours := opens(ids...)
	reads, err := r.Poll(context.Background(), open, ours)
	require.NoError(t, err)
	assert.Empty(t, svc.labels, "no look-up")
	assert.Equal(t, []int{1}, svc.pages, "the newest page holds all fifty")
	assert.Len(t, reads.Seen, 50)
	n, ok := r.Index.Page(101)
	require.True(t, ok, "their place is known from then on")
	assert.Equal(t, 1, n)
}

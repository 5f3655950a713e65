package apiclient_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/betplan/betplan/apiclient"
)

// A body of the wrong shape is explained in the service's terms, not in
// Go's type names.
func TestDecodeErrorSpeaksJSON(t *testing.T) {
	for _, tt := range []struct {
		name, body, want string
	}{
		{"results not a list", `{"count":1,"results":"x"}`, `GET /notification/: cannot read the response: field "results" is a string, want an array`},
		{"label a number", `{"results":[{"id":1,"label":5}]}`, `GET /notification/: cannot read the response: field "results.label" is a number, want a string`},
		{"stake not a number", `{"results":[{"id":1,"stake":"abc"}]}`, `GET /notification/: cannot read the response: cannot read "abc" as a number`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, tt.body) })
			_, err := f.client(t).ListNotifications(context.Background(), apiclient.ListNotificationsOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			eq(t, "error", err.Error(), tt.want)
			for _, internal := range []string{"Page[", "github.com/", "apiclient.", "Go struct"} {
				if strings.Contains(err.Error(), internal) {
					t.Errorf("error %q shows Go's %q", err, internal)
				}
			}
		})
	}
}

package plan

import "testing"

// TestVenueTimeZone: every zone named loads, every venue outside the
// south-east is a venue validate knows, and a venue not known has none.
func TestVenueTimeZone(t *testing.T) {
	for v, z := range venueZones {
		if !knownVenue(v) {
			t.Errorf("%s (%s) is not in the venues", v, z)
		}
	}
	for venue, want := range map[string]string{
		"Ascot": "Australia/Perth", "flemington": "Australia/Sydney", "Angle Park": "Australia/Adelaide",
		"Eagle Farm": "Australia/Brisbane", "Wentworth Park": "Australia/Sydney", "Nowhere Downs": "",
	} {
		if got := VenueTimeZone(venue); got != want {
			t.Errorf("VenueTimeZone(%q) = %q, want %q", venue, got, want)
		}
	}
}

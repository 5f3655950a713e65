package plan

// VenueTimeZone is the IANA time zone of an Australian venue's state, the
// zone its race times are read in on course ("Australia/Perth" for
// Ascot), or "" for a venue not known. The service writes every start in
// one eastern offset; a Perth race is still shown in Perth's time.
func VenueTimeZone(venue string) string {
	v := FoldVenue(venue)
	if z, ok := venueZones[v]; ok {
		return z
	}
	if knownVenue(v) {
		return "Australia/Sydney" // New South Wales, Victoria, the ACT: one rule
	}
	return ""
}

// venueZones are the known venues outside the south-east's zone, by folded
// name.
var venueZones = func() map[string]string {
	m := map[string]string{}
	for zone, vs := range map[string][]string{
		"Australia/Perth": {"Ascot", "Belmont", "Belmont Park", "Pinjarra", "Bunbury", "Northam", "Kalgoorlie",
			"Geraldton", "Esperance", "Broome", "Carnarvon", "Gloucester Park", "Cannington", "Mandurah"},
		"Australia/Adelaide": {"Morphettville", "Morphettville Parks", "Murray Bridge", "Gawler", "Port Lincoln",
			"Strathalbyn", "Balaklava", "Oakbank", "Clare", "Bordertown", "Penola", "Mount Gambier", "Naracoorte",
			"Globe Derby", "Globe Derby Park", "Angle Park"},
		"Australia/Broken_Hill": {"Broken Hill"},
		"Australia/Darwin":      {"Darwin", "Fannie Bay", "Alice Springs"},
		"Australia/Brisbane": {"Doomben", "Eagle Farm", "Gold Coast", "Sunshine Coast", "Ipswich", "Toowoomba",
			"Rockhampton", "Townsville", "Cairns", "Beaudesert", "Gatton", "Dalby", "Kilcoy", "Mackay", "Bowen",
			"Emerald", "Longreach", "Roma", "Warwick", "Albion Park", "Redcliffe", "Marburg", "Capalaba",
			"Q Straight", "Q1 Lakeside"},
		"Australia/Hobart": {"Elwick", "Hobart", "Launceston", "Mowbray", "Devonport"},
	} {
		for _, v := range vs {
			m[FoldVenue(v)] = zone
		}
	}
	return m
}()

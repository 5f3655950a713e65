package notify

import "github.com/nicholas-fedor/shoutrrr/pkg/router"

// TitleParams are the params sendService gives the service of url for m.
func TitleParams(url string, m *Message) (map[string]string, error) {
	svc, err := (&router.ServiceRouter{}).Locate(url)
	if err != nil {
		return nil, err
	}
	return titleParams(svc, m), nil
}

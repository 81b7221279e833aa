package turn

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// zoneOf is the time zone of a tenant's settings.
func zoneOf(domain.TenantSettings) *time.Location { return time.UTC }

package server

import (
	"strings"

	"github.com/labstack/echo/v4"
)

// sharePathPrefix starts the paths of the public share page, whose next
// segment is a share link's token: a credential, kept out of logs.
const sharePathPrefix = BasePath + "/share/"

// loggedPath is a request's path as logs show it: the path as sent, except
// under the share page, where the route template stands in for it
// ("/api/v1/share/:shareToken") or, when no route matched, the prefix with
// the rest redacted.
func loggedPath(c echo.Context) string {
	p := c.Request().URL.Path
	if !strings.HasPrefix(p, sharePathPrefix) {
		return p
	}
	if route := c.Path(); strings.HasPrefix(route, sharePathPrefix+":") {
		return route
	}
	return sharePathPrefix + "[redacted]"
}

package demosite

import (
	"net/http"
	"strconv"
)

// renderError renders a small error page.
func renderError(status int, message string) string {
	text := http.StatusText(status)
	return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
		strconv.Itoa(status) + " " + text + "</title>\n</head>\n<body>\n<h1>" +
		strconv.Itoa(status) + " " + text + "</h1>\n<p>" + esc(message) +
		"</p>\n<p><a href=\"/\">Back to the shop</a></p>\n</body>\n</html>\n"
}

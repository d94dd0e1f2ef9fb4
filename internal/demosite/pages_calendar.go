package demosite

import (
	"fmt"
	"strconv"
	"time"
)

// renderCalendar renders /calendar/YYYY/MM/, linking to the neighbouring
// months; the chain never ends within years 0001–9999.
func (s *Site) renderCalendar(year int, month time.Month) string {
	self := calendarPath(year, month)
	p := s.newPage(self)
	title := fmt.Sprintf("Events - %s %04d", month, year)
	p.head(csUTF8, title, "", "", false)
	p.w("<div class=\"row\">\n<div class=\"col-sm-8 col-md-9\">\n<h1>", title, "</h1>\n<ul class=\"pager\">\n")
	first := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	if prev := first.AddDate(0, -1, 0); prev.Year() >= 1 {
		p.w(`<li class="previous"><a href="`, p.link(calendarPath(prev.Year(), prev.Month())), "\">previous month</a></li>\n")
	}
	if next := first.AddDate(0, 1, 0); next.Year() <= 9999 {
		p.w(`<li class="next"><a href="`, p.link(calendarPath(next.Year(), next.Month())), "\">next month</a></li>\n")
	}
	p.w("</ul>\n<table class=\"calendar\">\n<tr>")
	for _, d := range []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"} {
		p.w("<th>", d, "</th>")
	}
	p.w("</tr>\n<tr>")
	col := (int(first.Weekday()) + 6) % 7
	for range col {
		p.w("<td></td>")
	}
	for d := first; d.Month() == month; d = d.AddDate(0, 0, 1) {
		if col == 7 {
			p.w("</tr>\n<tr>")
			col = 0
		}
		p.w("<td>", strconv.Itoa(d.Day()), "</td>")
		col++
	}
	p.w("</tr>\n</table>\n<p>No events scheduled.</p>\n</div>\n</div>\n")
	p.foot()
	return p.String()
}

func calendarPath(year int, month time.Month) string {
	return fmt.Sprintf("/calendar/%04d/%02d/", year, int(month))
}

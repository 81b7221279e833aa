package main

// The IANA time zone database, embedded so that tenant time zones
// (settings.timezone) load on hosts without /usr/share/zoneinfo, such as
// minimal containers.
import _ "time/tzdata"

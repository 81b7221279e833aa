package domain

import (
	"encoding/base64"
)

// Page limits, as documented in the contract.
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// PageRequest asks for one page of a list: at most Limit items after the
// item whose sort key is After ("" for the first page).
type PageRequest struct {
	Limit int
	After string
}

// Page is one page of a list; Next is the cursor of the following page, or
// "" on the last page.
type Page[T any] struct {
	Items []T
	Next  string
}

// NewPageRequest turns the optional limit and cursor of a list operation into
// a PageRequest. Returns CodeInvalidCursor if the cursor was not made by
// EncodeCursor.
func NewPageRequest(limit *int32, cursor *string) (PageRequest, error) {
	p := PageRequest{Limit: DefaultPageSize}
	if limit != nil {
		p.Limit = min(max(int(*limit), 1), MaxPageSize)
	}
	if cursor != nil && *cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(*cursor)
		if err != nil || len(after) == 0 {
			return PageRequest{}, &Error{
				Code:    CodeInvalidCursor,
				Message: "The cursor is not one this service handed out.",
				Fields:  []FieldError{{Field: "query.cursor", Message: "unknown cursor"}},
			}
		}
		p.After = string(after)
	}
	return p, nil
}

// EncodeCursor makes the opaque cursor that resumes a list after sortKey.
func EncodeCursor(sortKey string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(sortKey))
}

// PageOf cuts rows, fetched with a limit of req.Limit+1, into a page: the
// extra row only tells that another page exists. key gives a row's sort key.
func PageOf[T any](rows []T, req PageRequest, key func(T) string) Page[T] {
	if len(rows) <= req.Limit {
		return Page[T]{Items: rows}
	}
	rows = rows[:req.Limit]
	return Page[T]{Items: rows, Next: EncodeCursor(key(rows[len(rows)-1]))}
}

// All collects every item of a listing, MaxPageSize at a time, for callers
// that need the whole set (a tenant's metadata fields): nothing is cut
// silently at a page size.
func All[T any](list func(PageRequest) (Page[T], error)) ([]T, error) {
	var out []T
	p := PageRequest{Limit: MaxPageSize}
	for {
		page, err := list(p)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
		next, ok := page.NextPage(p.Limit)
		if !ok {
			return out, nil
		}
		p = next
	}
}

// NextPage returns the request for the page after p, of limit items, and
// false when p is the last page. Next is an opaque cursor (EncodeCursor);
// a request's After is the sort key it holds.
func (p Page[T]) NextPage(limit int) (PageRequest, bool) {
	if p.Next == "" {
		return PageRequest{}, false
	}
	after, err := base64.RawURLEncoding.DecodeString(p.Next)
	if err != nil {
		return PageRequest{}, false // not a cursor this package made: nothing follows
	}
	return PageRequest{Limit: limit, After: string(after)}, true
}

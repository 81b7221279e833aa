package parse

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/cs-assistant/assistant/internal/testfiles"
)

// helpPage is a help-centre page as site templates make them: a banner, a
// menu, breadcrumbs, a sidebar and a footer around one <main>.
const helpPage = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Returns | Acme Help</title>
<style>body { color: red }</style><script>var tracking = "do not index";</script></head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header"><h1>Acme Help Centre</h1><nav><ul><li><a href="/">Home</a></li><li><a href="/faq">FAQ</a></li></ul></nav></header>
<div class="breadcrumbs"><a href="/">Help</a> › Returns</div>
<main id="main">
  <h1>Returns and refunds</h1>
  <p>You can return any item within <b>30 days</b>
     of delivery.</p>
  <div>Refunds are paid to the original card.<br>Gift cards are refunded as store credit.</div>
  <div class="sidebar"><h3>Popular articles</h3><ul><li>Track my order</li></ul></div>
  <h2>How do I start a return?</h2>
  <ol>
    <li>Open <a href="/orders">your orders</a>.</li>
    <li>Choose the item
      <ul><li>Pick a reason</li></ul>
    </li>
  </ol>
  <blockquote>Sale items are final.</blockquote>
  <pre>  curl -X POST https://api.acme.test/returns
    -d order=42</pre>
  <p hidden>Internal: staff discount code.</p>
  <p aria-hidden="true">Decorative.</p>
  <p style="display: none">Hidden by style.</p>
  <noscript>Enable JavaScript.</noscript>
  <form><label>Was this helpful?</label><button>Yes</button></form>
  <template><p>Template text</p></template>
  <svg><text>chart label</text></svg>
</main>
<aside>Related: shipping</aside>
<footer class="site-footer"><p>© 2026 Acme</p></footer>
</body></html>`

// parseHTMLPage parses page as a web page under the default limits.
func parseHTMLPage(t *testing.T, page []byte) Document {
	t.Helper()
	doc, err := Parse(context.Background(), KindHTML, bytes.NewReader(page), DefaultLimits())
	require.NoError(t, err)
	require.Equal(t, KindHTML, doc.Kind)
	return doc
}

func TestParseHTMLReadsTheMainContentAsBlocks(t *testing.T) {
	tests := []struct {
		name string
		page string
		want []Block
	}{
		{
			name: "help page: only <main>, furniture and hidden parts dropped",
			page: helpPage,
			want: []Block{
				{Text: "Returns and refunds", Heading: true, Level: 1, Lang: "en"},
				{Text: "You can return any item within 30 days of delivery.", Lang: "en"},
				{Text: "Refunds are paid to the original card.\nGift cards are refunded as store credit.", Lang: "en"},
				{Text: "How do I start a return?", Heading: true, Level: 2, Lang: "en"},
				{Text: "Open your orders.", ListItem: true, Lang: "en"},
				{Text: "Choose the item", ListItem: true, Lang: "en"},
				{Text: "Pick a reason", ListItem: true, Lang: "en"},
				{Text: "Sale items are final.", Lang: "en"},
				{Text: "  curl -X POST https://api.acme.test/returns\n    -d order=42", Preformatted: true, Lang: "en"},
			},
		},
		{
			name: "no <main>: the whole body without page-level header and footer",
			page: `<html><body><header><p>Site name</p></header><div id="header">Top bar</div>
				<h2>Shipping</h2><p>We ship in two days.</p>
				<div class="toc"><a href="#a">Shipping</a></div>
				<div role="navigation">Next page</div><div role="contentinfo">Imprint</div>
				<footer>Contact</footer></body></html>`,
			want: []Block{
				{Text: "Shipping", Heading: true, Level: 2},
				{Text: "We ship in two days."},
			},
		},
		{
			name: "several <article>s are all kept; an article's own header stays",
			page: `<body><div class="banner-text">Sale!</div>
				<article><header class="entry-header"><h2>Can I pay by invoice?</h2></header><p>Yes, for businesses.</p><footer>Tags: payment</footer></article>
				<article><h2>Do you ship abroad?</h2><p>Within the EU.</p></article></body>`,
			want: []Block{
				{Text: "Can I pay by invoice?", Heading: true, Level: 2},
				{Text: "Yes, for businesses."},
				{Text: "Tags: payment"},
				{Text: "Do you ship abroad?", Heading: true, Level: 2},
				{Text: "Within the EU."},
			},
		},
		{
			name: "class words spare the page, its main content and table parts",
			page: `<html class="toc-enabled"><body class="page no-sidebar"><main class="main-menu-open"><article class="header-image">
				<table class="tablesorter"><thead><tr><th class="header">Plan</th><th class="header">Price</th></tr></thead>
				<tbody><tr><td>Basic</td><td>5 EUR</td></tr></tbody></table></article></main></body></html>`,
			want: []Block{{Text: "Plan: Basic; Price: 5 EUR"}},
		},
		{
			name: "the largest of two <main>s",
			page: `<body><main><p>Short.</p></main><main><p>The longer main content wins here.</p></main></body>`,
			want: []Block{{Text: "The longer main content wins here."}},
		},
		{
			name: "tables: header row names the cells; no header joins them",
			page: `<body><table><caption>Fees</caption><thead><tr><th>Item</th><th>Fee</th></tr></thead>
				<tbody><tr><td>Camera body</td><td>15%</td></tr><tr><td colspan="2">Tripods are free</td></tr></tbody></table>
				<table><tr><td>Mon–Fri</td><td>9–18</td></tr><tr><td>Sat</td><td></td></tr></table>
				<table><tr><th>Only</th><th>Header</th></tr></table></body>`,
			want: []Block{
				{Text: "Fees"},
				{Text: "Item: Camera body; Fee: 15%"},
				{Text: "Item: Tripods are free"},
				{Text: "Mon–Fri | 9–18"},
				{Text: "Sat"},
				{Text: "Only | Header"},
			},
		},
		{
			name: "a layout table (it holds a heading) is read as blocks",
			page: `<body><table><tr><td><h1>Warranty</h1><p>Two years on every device.</p></td></tr></table></body>`,
			want: []Block{
				{Text: "Warranty", Heading: true, Level: 1},
				{Text: "Two years on every device."},
			},
		},
		{
			name: "dl: terms are questions, definitions their answers",
			page: `<body><dl><dt>How long is the warranty?</dt><dd>Two years.</dd><dd><p>Batteries: one year.</p></dd>
				<dt>Is it transferable?</dt><dd>No.</dd></dl></body>`,
			want: []Block{
				{Text: "How long is the warranty?", Question: true},
				{Text: "Two years."},
				{Text: "Batteries: one year."},
				{Text: "Is it transferable?", Question: true},
				{Text: "No."},
			},
		},
		{
			name: "details: the summary asks, the rest answers; a heading in it stays a heading",
			page: `<body><details><summary>Can I change my order?</summary><p>Within one hour.</p><ul><li>Call us</li></ul></details>
				<details open><summary><h3>Where is my parcel?</h3></summary>Use the tracking link.</details></body>`,
			want: []Block{
				{Text: "Can I change my order?", Question: true},
				{Text: "Within one hour."},
				{Text: "Call us", ListItem: true},
				{Text: "Where is my parcel?", Heading: true, Level: 3, Question: true},
				{Text: "Use the tracking link."},
			},
		},
		{
			name: "lang: the nearest attribute, the html element's included, canonical form",
			page: `<html lang="en"><body><p>Opening hours</p><div lang="zh-cn"><p>营业时间</p><p lang="">Unknown</p></div>
				<p xml:lang="fr">Heures</p></body></html>`,
			want: []Block{
				{Text: "Opening hours", Lang: "en"},
				{Text: "营业时间", Lang: "zh-CN"},
				{Text: "Unknown"},
				{Text: "Heures", Lang: "fr"},
			},
		},
		{
			name: "Chinese wrapped in the source joins without a space; Latin with one",
			page: "<body><p>购买后七天内\n可无理由退货，\n  运费由买家承担。</p><p>Free\nreturns\tfor   members.</p></body>",
			want: []Block{
				{Text: "购买后七天内可无理由退货，运费由买家承担。"},
				{Text: "Free returns for members."},
			},
		},
		{
			name: "DocBook: navheader, TOC, footnote marks and navfooter dropped",
			page: `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Chapter 2</title></head><body>
<div class="navheader"><table width="100%" summary="Navigation header"><tr><th colspan="3" align="center">Chapter 2. Getting Debian</th></tr><tr><td><a accesskey="p" href="a.html">Prev</a></td><th> </th><td><a accesskey="n" href="b.html">Next</a></td></tr></table><hr /></div>
<div class="chapter"><div class="titlepage"><div><div><h1 class="title"><a id="getting"></a>Chapter 2. Getting Debian</h1></div></div></div>
<div class="toc"><p><strong>Table of Contents</strong></p><dl class="toc"><dt><span class="section"><a href="#version">2.1. What is the latest version?</a></span></dt></dl></div>
<div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="version"></a>2.1. What is the latest version?</h2></div></div></div><p>
The latest version is 11<a href="#ftn.x" class="footnote" id="x"><sup class="footnote">[1]</sup></a>.
</p></div></div>
<div class="footnotes"><div id="ftn.x" class="footnote"><p><sup>[<a href="#x" class="para">1</a>] </sup>Released in 2021.</p></div></div>
<div class="navfooter"><hr /><table width="100%" summary="Navigation footer"><tr><td><a href="a.html">Prev</a></td><td><a href="index.html">Home</a></td></tr></table></div>
</body></html>`,
			want: []Block{
				{Text: "Chapter 2. Getting Debian", Heading: true, Level: 1},
				{Text: "2.1. What is the latest version?", Heading: true, Level: 2},
				{Text: "The latest version is 11."},
				{Text: "Released in 2021."},
			},
		},
		{
			name: "mdBook: class words inside a heading are styling, not furniture",
			page: `<body><nav id="sidebar"><ol class="chapter"><li>Intro</li></ol></nav><div id="menu-bar"><h1 class="menu-title">The Book</h1></div>
				<main><h1 id="what"><a class="header" href="#what">What is it?</a></h1><p>A tool.</p></main></body>`,
			want: []Block{
				{Text: "What is it?", Heading: true, Level: 1},
				{Text: "A tool."},
			},
		},
		{
			name: "footnote marks dropped, exponents kept",
			page: `<body><p>Rooms of 20 m<sup>2</sup> or more<sup><a href="#fn1">1</a></sup> qualify<sup>[2]</sup>.</p></body>`,
			want: []Block{{Text: "Rooms of 20 m2 or more qualify."}},
		},
		{
			name: "Sphinx: related bars, sidebar and headerlinks dropped",
			page: `<html><body><div class="related" role="navigation"><ul><li><a href="genindex.html">index</a></li></ul></div>
				<div class="document"><div class="body" role="main"><section id="install"><h1>Install<a class="headerlink" href="#install">¶</a></h1>
				<p>Run the installer.</p></section></div></div>
				<div class="sphinxsidebar" role="navigation"><h3>Navigation</h3></div><div class="footer">© Copyright.</div></body></html>`,
			want: []Block{
				{Text: "Install", Heading: true, Level: 1},
				{Text: "Run the installer."},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parseHTMLPage(t, []byte(tt.page))
			assert.Equal(t, tt.want, doc.Blocks)
		})
	}
}

// faqJSONLD is an FAQPage whose answers are HTML, as generators write them.
const faqJSONLD = `<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "FAQPage", "mainEntity": [
  {"@type": "Question", "name": "How long do refunds take?",
   "acceptedAnswer": {"@type": "Answer", "text": "<p>Refunds take <b>5 working days</b>.</p><ul><li>Cards: 5 days</li></ul>"}},
  {"@type": "Question", "name": "Can I return a sale item?",
   "acceptedAnswer": {"@type": "Answer", "text": "No, sale items are final."}}
]}
</script>`

func TestParseHTMLReadsFAQPageJSONLD(t *testing.T) {
	tests := []struct {
		name string
		page string
		want []Block
	}{
		{
			name: "in the head: after the content",
			page: `<html lang="en"><head>` + faqJSONLD + `</head><body><main><h1>Help</h1></main></body></html>`,
			want: []Block{
				{Text: "Help", Heading: true, Level: 1, Lang: "en"},
				{Text: "How long do refunds take?", Question: true, Lang: "en"},
				{Text: "Refunds take 5 working days.", Lang: "en"},
				{Text: "Cards: 5 days", ListItem: true, Lang: "en"},
				{Text: "Can I return a sale item?", Question: true, Lang: "en"},
				{Text: "No, sale items are final.", Lang: "en"},
			},
		},
		{
			name: "in the content: where the script sits",
			page: `<body><main><h1>Help</h1>` + faqJSONLD + `<p>Still stuck? Call us.</p></main></body>`,
			want: []Block{
				{Text: "Help", Heading: true, Level: 1},
				{Text: "How long do refunds take?", Question: true},
				{Text: "Refunds take 5 working days."},
				{Text: "Cards: 5 days", ListItem: true},
				{Text: "Can I return a sale item?", Question: true},
				{Text: "No, sale items are final."},
				{Text: "Still stuck? Call us."},
			},
		},
		{
			name: "a question the page shows is not repeated",
			page: `<head>` + faqJSONLD + `</head><body><h2>2. How long do refunds take?</h2><p>Five working days.</p></body>`,
			want: []Block{
				{Text: "2. How long do refunds take?", Heading: true, Level: 2},
				{Text: "Five working days."},
				{Text: "Can I return a sale item?", Question: true},
				{Text: "No, sale items are final."},
			},
		},
		{
			name: "in @graph, typed as a list, repeated by a second script",
			page: `<head><script type="application/ld+json">{"@graph": [{"@type": "WebPage"}, {"@type": ["WebPage", "FAQPage"],
				"mainEntity": {"@type": "Question", "name": "Do you ship abroad?", "acceptedAnswer": [{"text": "Within the EU."}]}}]}</script>
				<script type="application/ld+json">{"@type": "FAQPage", "mainEntity": [{"@type": "Question", "name": "Do you ship abroad?", "acceptedAnswer": {"text": "Yes."}}]}</script>
				<script type="application/ld+json">{not json</script></head><body><p>Shipping</p></body>`,
			want: []Block{
				{Text: "Shipping"},
				{Text: "Do you ship abroad?", Question: true},
				{Text: "Within the EU."},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parseHTMLPage(t, []byte(tt.page))
			assert.Equal(t, tt.want, doc.Blocks)
		})
	}
}

func TestParseHTMLDecodesTheDeclaredCharset(t *testing.T) {
	const body = "<p>退款政策：收到商品后七天内可以申请无理由退货。</p>"
	const want = "退款政策：收到商品后七天内可以申请无理由退货。"
	tests := []struct {
		name     string
		data     []byte
		encoding string
	}{
		{"GB18030 declared by <meta charset>", testfiles.Encode(simplifiedchinese.GB18030,
			`<html><head><meta charset="gb18030"><title>t</title></head><body>`+body+`</body></html>`), "gb18030"},
		{"GB2312 declared by http-equiv, read as GB18030", testfiles.Encode(simplifiedchinese.GB18030,
			`<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head><body>`+body+`</body></html>`), "gb18030"},
		{"Big5 declared by an XML declaration", testfiles.Encode(traditionalchinese.Big5,
			`<?xml version="1.0" encoding="big5"?><html><body><p>退款政策：收到商品後七天內可以申請無理由退貨。</p></body></html>`), "big5"},
		{"GBK without a declaration: the text heuristics", testfiles.GBK(`<html><body>` + body + `</body></html>`), "gb18030"},
		{"UTF-8 with a BOM", append([]byte{0xEF, 0xBB, 0xBF}, `<html><body>`+body+`</body></html>`...), "utf-8"},
		{"UTF-8 declared as ISO-8859-1", []byte(`<html><head><meta charset="iso-8859-1"></head><body>` + body + `</body></html>`), "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parseHTMLPage(t, tt.data)
			require.Len(t, doc.Blocks, 1)
			if tt.encoding == "big5" {
				assert.Equal(t, "退款政策：收到商品後七天內可以申請無理由退貨。", doc.Blocks[0].Text)
			} else {
				assert.Equal(t, want, doc.Blocks[0].Text)
			}
			assert.Equal(t, tt.encoding, doc.Encoding)
		})
	}
}

func TestParseHTMLFailsWithAReason(t *testing.T) {
	tests := []struct {
		name   string
		page   string
		reason string
	}{
		{"a page with no text", `<html><head><title>Only a title</title></head><body><nav>Menu</nav><script>x()</script></body></html>`, ReasonNoText},
		{"empty", "", ReasonEmptyFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse(context.Background(), KindHTML, bytes.NewReader([]byte(tt.page)), DefaultLimits())
			requireReason(t, err, tt.reason)
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

func TestParseHTMLReadsAPageTooDeepForTheTreeFlat(t *testing.T) {
	tests := []struct {
		name string
		page string
		want []Block
	}{
		{
			name: "100,000 nested divs",
			page: strings.Repeat("<div>", 100000) + "deep" + strings.Repeat("</div>", 100000),
			want: []Block{{Text: "deep"}},
		},
		{
			name: "a template that never closes its <div>s",
			page: "<html><head><title>T</title><script>x()</script></head><body><nav>Menu</nav><h2>Opening hours</h2>" +
				strings.Repeat(`<div class="row"><p>Open daily from 9 to 18.`, 600) + "<br>Closed on holidays.</body></html>",
			want: append(append([]Block{{Text: "Opening hours", Heading: true, Level: 2}},
				slices.Repeat([]Block{{Text: "Open daily from 9 to 18."}}, 599)...),
				Block{Text: "Open daily from 9 to 18.\nClosed on holidays."}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			doc := parseHTMLPage(t, []byte(tt.page))
			assert.Equal(t, tt.want, doc.Blocks)
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

func TestParseHTMLHostilePagesStayBoundedInTime(t *testing.T) {
	tests := map[string]string{
		// Formatting elements left open make the parser reconstruct them
		// for every paragraph: the classic quadratic input.
		"unclosed formatting elements": strings.Repeat("<b><i><u><a href=x>", 2000) + strings.Repeat("<p>text", 20000),
		"nested tables":                strings.Repeat("<table><tr><td>", 150) + "cell",
		"half a million list items":    "<ul>" + strings.Repeat("<li>item", 1<<19),
		"a huge JSON-LD script":        `<script type="application/ld+json">[` + strings.Repeat(`{"@type":"FAQPage","mainEntity":[{"@type":"Question","name":"q","acceptedAnswer":{"text":"<p>a"}}]},`, 50000) + `{}]</script><p>x</p>`,
	}
	for name, page := range tests {
		t.Run(name, func(t *testing.T) {
			lim := DefaultLimits()
			lim.Timeout = 3 * time.Second
			start := time.Now()
			doc, err := Parse(context.Background(), KindHTML, bytes.NewReader([]byte(page)), lim)
			elapsed := time.Since(start)
			var pe *Error
			switch {
			case errors.As(err, &pe):
				// Past the deadline; too deep a page is read flat, not refused.
				assert.Contains(t, []string{ReasonTimeout, ReasonCorrupt}, pe.Reason, "%v", err)
			default:
				require.NoError(t, err)
				assert.NotEmpty(t, doc.Blocks)
			}
			t.Logf("%s: %d blocks, err %v", elapsed, len(doc.Blocks), err)
			assert.Less(t, elapsed, 4*time.Second, "the deadline holds")
		})
	}
}

func TestParseHTMLStopsAtTheDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := parseHTML(ctx, bytes.NewReader([]byte("<p>"+strings.Repeat("word ", 100000)+"</p>")), DefaultLimits())
	requireReason(t, err, ReasonTimeout)
}

// Package faq is the sample knowledge base that ships with the service: a
// small product FAQ in English and in Chinese, one topic per page, as PDFs
// (so answers can cite pages). `make demo` uploads it; `go run ./samples/faq/gen`
// writes the files, and a test keeps the committed ones fresh.
package faq

import "github.com/cs-assistant/assistant/internal/testfiles"

// English is the English FAQ, one topic per page.
func English() [][]string {
	return [][]string{
		{"Refunds", "You can ask for a refund within 7 days of delivery.",
			"Approved refunds reach your original payment method within 3 working days.",
			"Shipping costs are refunded when the item arrived damaged."},
		{"Shipping", "Orders leave our warehouse within 2 working days.",
			"Delivery takes 3 to 5 working days inside the country.",
			"You get a tracking number by e-mail when the parcel ships."},
		{"Warranty", "Every router and camera has a 2-year warranty against hardware faults.",
			"Keep your invoice: it is your proof of purchase for warranty claims.",
			"Damage from drops or water is not covered by the warranty."},
	}
}

// Chinese is the Chinese FAQ, one topic per page.
func Chinese() [][]string {
	return [][]string{
		{"退款政策", "签收后七天内可以申请退款。", "退款审核通过后，三个工作日内原路退回。", "商品到货破损时，运费一并退还。"},
		{"配送说明", "订单在两个工作日内从仓库发出。", "国内配送需要三到五个工作日。", "包裹发出后，我们会通过邮件发送物流单号。"},
		{"保修服务", "所有路由器和摄像头享受两年硬件保修。", "请保留发票，保修时需要出示购买凭证。", "跌落或进水造成的损坏不在保修范围内。"},
	}
}

// Files are the sample files by name.
func Files() map[string][]byte {
	return map[string][]byte{
		"product-faq-en.pdf": testfiles.PDF(English()),
		"product-faq-zh.pdf": testfiles.CJKPDF(Chinese()),
	}
}

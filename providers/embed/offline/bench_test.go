package offline

import "testing"

// benchChunk is about 512 tokens of support-centre English (~2,600 bytes,
// ~430 words, no repetition), the chunk size ingestion produces.
func benchChunk() string {
	return `Returns and refunds. You can return most items within thirty days of delivery for a full refund, provided they are unused and in their original packaging. ` +
		`Some categories cannot be returned: perishable groceries, personalised jewellery, opened software, gift cards and intimate apparel. ` +
		`To start a return, sign in, open Orders, select the item and choose Return or replace. We will ask why you are sending it back; ` +
		`the answer decides whether the return label is free. If the product arrived damaged, defective or different from its description, ` +
		`return shipping is on us and you will see a prepaid label immediately. For change-of-mind returns a flat fee of 4.99 EUR is deducted from the refund. ` +
		`Pack the item securely, attach the label, and drop the parcel at any partner pick-up point within fourteen days; the label expires after that. ` +
		`Once the warehouse receives and inspects the parcel, usually within two business days, we issue the refund to the original payment method. ` +
		`Card refunds take three to five business days to appear, depending on your bank; PayPal refunds are typically instant; bank transfers can take up to ten days. ` +
		`If you paid partly with a gift card, that portion goes back to your gift card balance, which never expires. ` +
		`Exchanges work the same way: choose Replace instead of Return, pick the new size or colour, and we ship the replacement as soon as the original is scanned by the carrier. ` +
		`Large appliances and furniture are collected from your home by appointment. After you request the return, our logistics partner calls within forty-eight hours to agree on a time slot. ` +
		`Please make sure the item is disconnected, emptied and accessible; the driver cannot carry items down more than two flights of stairs without a lift. ` +
		`Warranty claims are different from returns. Every electronic product comes with a two-year legal guarantee; for faults that appear after the return window, ` +
		`open a warranty case from the order page and attach a short video or photo of the problem. We may offer a repair, a replacement or a partial refund. ` +
		`Marketplace sellers have their own return policies, shown on the product page under Sold by. Their terms must be at least as generous as the law requires, ` +
		`and our A-to-Z guarantee covers you if a seller does not respond within three days. ` +
		`Still need help? Chat with an agent from the Help page between 8:00 and 22:00 CET, or call the number printed on your invoice. ` +
		`Have your order number ready; it starts with two letters followed by ten digits, for example DE1234567890.`
}

// benchChunkChinese is about 512 tokens of Chinese (~560 characters, no
// repetition).
func benchChunkChinese() string {
	return "退货与退款说明。大部分商品在签收后三十天内可申请退货并获得全额退款，前提是商品未使用且保留原包装。" +
		"以下品类不支持退货：生鲜食品、定制首饰、已拆封的软件、礼品卡以及贴身衣物。" +
		"申请退货时，请登录账户，进入我的订单，选择对应商品并点击退货或换货。系统会询问退货原因，该原因决定运费由谁承担。" +
		"如果商品在收到时已损坏、存在质量问题或与描述不符，退货运费由我们承担，您将立即获得预付运单。" +
		"因个人原因退货的，将从退款中扣除四点九九欧元的固定费用。请妥善包装商品，贴好运单，并在十四天内送至任一合作取件点，逾期运单将失效。" +
		"仓库收到包裹并完成检验后，通常在两个工作日内，我们会将款项原路退回。银行卡退款一般需要三到五个工作日到账，具体取决于发卡银行；" +
		"支付宝和微信支付的退款通常即时到账；银行转账最长可能需要十天。如部分使用礼品卡支付，该部分金额将退回礼品卡余额，余额永久有效。" +
		"换货流程与退货相同：选择换货而非退货，挑选新的尺码或颜色，待承运商扫描原商品后我们即刻发出替换商品。" +
		"大家电和家具由物流合作伙伴上门取件。提交申请后，对方会在四十八小时内致电与您约定时间。请确保商品已断电、清空并便于搬运；" +
		"若无电梯，司机最多只能搬运两层楼梯。保修申请与退货不同。所有电子产品均享有两年法定保修；超过退货期限出现的故障，" +
		"请在订单页面发起保修申请，并附上问题的短视频或照片。我们可能提供维修、更换或部分退款。第三方卖家有各自的退货政策，" +
		"显示在商品页面的销售方信息下方。如卖家三天内未回复，平台保障将为您兜底。仍需帮助？请在帮助页面与客服在线交流，" +
		"服务时间为每天八点至二十二点，或拨打发票上的客服电话。请准备好订单号，订单号以两个字母开头，后接十位数字。"
}

func benchmarkEmbed(b *testing.B, text string) {
	e := New()
	dst := make([]float32, Dims)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		e.EmbedInto(dst, text)
	}
}

// BenchmarkEmbedChunkEnglish: ns/op is the time to embed one 512-token chunk.
func BenchmarkEmbedChunkEnglish(b *testing.B) { benchmarkEmbed(b, benchChunk()) }

// BenchmarkEmbedChunkChinese: ns/op is the time to embed one 512-token chunk.
func BenchmarkEmbedChunkChinese(b *testing.B) { benchmarkEmbed(b, benchChunkChinese()) }

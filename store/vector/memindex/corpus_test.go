package memindex

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/cs-assistant/assistant/providers/embed/offline"
)

// supportWords is the vocabulary of the synthetic support texts: the words
// of a furniture shop's FAQ, guide and handbook (eval/datasets), most
// frequent first, so that a Zipf draw over it has the skew of real text.
var supportWords = strings.Fields(`the to and is can you of how with for do be days are your at on my delivery
furniture we it within pay warranty in item free from what by years sofa orders our return order deliver
service per get home long an after year or table have assembly much as should every questions items costs
working if they must does cost care outdoor white bed account payment before charge two gift hours fabric
away mattress wood guide this covers rugs months least that small leather not price dining who original
standard express delivered person room bank valid all against manufacturing booked checkout customer phone
also warehouse send once time old one which back where offer invoice use wooden dry oak tables treated often
keep repair cushions wear easy wash degrees normal rug teak store make claim couch glass will frame privacy
club prices armchair chair wardrobe most smaller label fee refunds method business receive returned takes
day over choice accept visa mastercard klarna transfer cards defects email showroom open their first cancel
shipped mattresses taken when new photo students countries money need there shop look products number
product upholstery solid soft cloth never finish oiled oil wax included washed cleaned twice paper towel wool
weeks fading cleaning garden grey protector cover them indoor date damage screws far kept guarantee put
returns packaging collect team hour springs pets wardrobes beds personal members many rows dimensions colour
mustard yellow floor lamp frequently asked pays shipping returning nothing deduct paid arrives next ship
bulky crew carry reserved while wait available comes reachable monday friday support reply saturday
newsletter subscribers welcome discount cancelled until leave track parcel tracking link samples swatches
damaged reported off student verified through paypal amount still possible changed mind current special
offers arrived scratch soon tell things interior design consultations eco friendly certified company card
live chat website pages edition pieces dust surfaces weekly cotton sprays cleaners ammonia dull surface looks
humidity between percent prevents cracks warping hot dishes placed coaster heat leaves marks cannot removed
scratches hidden vacuum week brush attachment turn plump loose seat regularly evenly removable gentle cycle
air dried damp balm blot spills immediately rub pushes liquid deeper fibres during stops rotate prevent
uneven professional recommended summer outdoors unless misuse incorrect receipt contact photos replace
refund faulty approving spare parts feet ordered purchase temperature spilled red wine buy replacement
carpet losing fluff wrong light scuffs less visible change address ordering interest financing nearest
clean tabletop bench blocks explains shopping works placing`)

// supportWordsZH are Chinese support words, for texts the embedder cuts
// into characters and character bigrams.
var supportWordsZH = strings.Fields(`退货 退款 订单 发货 配送 物流 快递 签收 包裹 保修 维修 发票 支付 银行卡 余额 礼品卡
客服 电话 邮件 工作日 仓库 运费 换货 尺码 颜色 商品 质量 破损 损坏 退回 申请 审核 账户 登录 地址 修改 取消
优惠 折扣 会员 积分 家具 沙发 床垫 桌子 椅子 安装 上门 预约 时间 原路 到账 三天 七天 两年 硬件 摄像头 路由器`)

// lexicalCorpus is synthetic support text embedded by the offline
// (lexical) embedder, the default in production: n documents of one to
// four sentences (one in ten Chinese) with order numbers and prices, and
// queries of two kinds, as retrieval sees them: half are short questions
// drawn like the documents (near-ties everywhere, the hard case for a
// code), half are a few words of one document mixed with other words (a
// question some document answers).
func lexicalCorpus(rng *rand.Rand, n, queries int) (docs, qs [][]float32) {
	zipf := rand.NewZipf(rng, 1.1, 4, uint64(len(supportWords)-1))
	word := func() string { return supportWords[zipf.Uint64()] }
	sentence := func(words int) string {
		var b strings.Builder
		for i := range words {
			if i > 0 {
				b.WriteByte(' ')
			}
			switch rng.IntN(25) {
			case 0:
				b.WriteString("DE" + strconv.Itoa(1_000_000_000+rng.IntN(1_000_000_000)))
			case 1:
				b.WriteString(strconv.Itoa(rng.IntN(500)) + "." + strconv.Itoa(10+rng.IntN(90)) + " EUR")
			default:
				b.WriteString(word())
			}
		}
		return b.String() + "."
	}
	chinese := func(words int) string {
		var b strings.Builder
		for range words {
			b.WriteString(supportWordsZH[rng.IntN(len(supportWordsZH))])
		}
		return b.String() + "。"
	}
	texts := make([]string, n)
	for i := range texts {
		var parts []string
		for range 1 + rng.IntN(4) {
			if i%10 == 9 {
				parts = append(parts, chinese(4+rng.IntN(10)))
			} else {
				parts = append(parts, sentence(6+rng.IntN(18)))
			}
		}
		texts[i] = strings.Join(parts, " ")
	}
	questions := make([]string, queries)
	for i := range questions {
		if i%2 == 0 {
			questions[i] = sentence(4+rng.IntN(8)) + "?"
			continue
		}
		// Some words of one document, shuffled among others.
		src := strings.Fields(texts[rng.IntN(n)])
		var q []string
		for _, w := range src {
			if rng.IntN(3) == 0 {
				q = append(q, w)
			}
		}
		for range 2 + rng.IntN(3) {
			q = append(q, word())
		}
		rng.Shuffle(len(q), func(a, b int) { q[a], q[b] = q[b], q[a] })
		questions[i] = strings.Join(q, " ") + "?"
	}
	e := offline.New()
	embed := func(texts []string) [][]float32 {
		arena := make([]float32, len(texts)*offline.Dims)
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = arena[i*offline.Dims : (i+1)*offline.Dims : (i+1)*offline.Dims]
			e.EmbedInto(out[i], t)
		}
		return out
	}
	return embed(texts), embed(questions)
}

// gaussianCorpus is n random Gaussian vectors of d dimensions and queries
// more: the hardest case for a code, since nothing stands out of the
// noise (the 10th best of 20k rows scores about 0.13, the 100th 0.11).
func gaussianCorpus(rng *rand.Rand, n, queries, d int) (docs, qs [][]float32) {
	gen := func(n int) [][]float32 {
		out := make([][]float32, n)
		for i := range out {
			out[i] = randVector(rng, d)
		}
		return out
	}
	return gen(n), gen(queries)
}

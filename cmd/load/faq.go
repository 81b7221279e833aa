package main

import (
	"fmt"
	"strings"
)

// The FAQ the load test seeds: product help-centre entries, one line each
// ("question? answer."), grouped under markdown headings for the product
// and the topic. A line of a text file that short is exactly one chunk
// (unit) of the service, so entry i of the generator is chunk i, and the
// same count always gives the same text.

// faqVersion names the generator in the seeded knowledge base's marker;
// change it whenever the text below changes, so older seeds are replaced.
const faqVersion = "v1"

// faqTemplate is one kind of FAQ entry: the topic it is filed under and a
// question about a product with its answer, with placeholders filled from
// the product and a deterministic choice of details (see fill).
type faqTemplate struct {
	topic, question, answer string
}

// faqTemplates are the entries of every product, in section order. Each
// line stays well under 48 tokens (the service's limit for a line to be
// one unit) with the longest product name and details.
var faqTemplates = []faqTemplate{
	{"Shipping and delivery", "How long does delivery of the {product} to {country} take?", "Orders to {country} arrive within {days} working days of dispatch."},
	{"Shipping and delivery", "Can I track my {product} order?", "Yes, a tracking link is emailed within {hours} hours of dispatch."},
	{"Shipping and delivery", "Do you ship the {product} to {country}?", "Yes, we ship it to {country} with {carrier}; customs fees are included."},
	{"Shipping and delivery", "What does express shipping of the {product} cost?", "Express shipping costs {fee} and arrives in {small} working days."},
	{"Returns and refunds", "Can I return the {product} after opening it?", "Yes, within {days} days, if all accessories are included."},
	{"Returns and refunds", "How long do refunds for the {product} take?", "Refunds reach your original payment method within {small} to {days} days."},
	{"Returns and refunds", "Who pays return shipping for the {product}?", "Returning a faulty one is free; otherwise a {fee} label is deducted."},
	{"Returns and refunds", "Can I exchange the {product} for another colour?", "Yes, it can be exchanged for {colour} within {days} days of delivery."},
	{"Warranty and repairs", "How long is the warranty on the {product}?", "It carries a {years}-year warranty covering hardware faults."},
	{"Warranty and repairs", "Does the {product} warranty cover water damage?", "No, water damage is not covered; a repair costs from {fee}."},
	{"Warranty and repairs", "How do I claim a repair for my {product}?", "Book the repair online; we collect it within {small} working days."},
	{"Warranty and repairs", "Can I extend the warranty of my {product}?", "Yes, the {plan} plan extends it by {small} years for {fee}."},
	{"Payment and pricing", "Can I pay for the {product} in instalments?", "Yes, in {small} monthly instalments without interest."},
	{"Payment and pricing", "Which payment methods can I use for the {product}?", "Card, bank transfer or {wallet}."},
	{"Payment and pricing", "Is there a student discount on the {product}?", "Students get {percent} percent off after verifying their email."},
	{"Payment and pricing", "Do you price match the {product}?", "We match a lower price from an authorised {country} retailer within {days} days."},
	{"Setup and use", "How do I set up the {product}?", "Install the companion app, hold the power button for {small} seconds and follow the steps."},
	{"Setup and use", "Does the {product} work without Wi-Fi?", "Yes, it works offline; updates and remote control need Wi-Fi."},
	{"Setup and use", "How do I reset the {product} to factory settings?", "Hold the reset button for {hours} seconds until the light blinks {colour}."},
	{"Setup and use", "How often should I clean the {product}?", "Every {small} weeks with a dry cloth; never use solvents."},
	{"Troubleshooting", "Why does my {product} not turn on?", "Charge it for {hours} minutes with the original cable, then hold power for {small} seconds."},
	{"Troubleshooting", "Why does the {product} keep disconnecting?", "Move it closer to the router and update it to firmware {firmware}."},
	{"Troubleshooting", "The {product} makes a noise, is that normal?", "A faint hum is normal; a rattle means it should be repaired."},
	{"Troubleshooting", "Why is my {product} battery draining fast?", "Firmware {firmware} fixes fast battery drain; install it from the app."},
	{"Account and orders", "Can I change the address of my {product} order?", "Yes, until it ships, under My orders."},
	{"Account and orders", "Can I cancel my {product} order?", "Yes, free of charge within {hours} hours of purchase."},
	{"Account and orders", "Where do I find the invoice for my {product}?", "Under My orders; it is also emailed on dispatch."},
	{"Account and orders", "Can I buy the {product} as a gift?", "Yes, choose gift wrap for {fee} at checkout and it ships without a receipt."},
	{"Subscriptions and care", "What does the {plan} plan include for the {product}?", "It covers accidental damage and a replacement within {small} days."},
	{"Subscriptions and care", "How do I cancel the {plan} plan of my {product}?", "Cancel it under My plans; you pay until the month ends."},
	{"Subscriptions and care", "Are spare parts for the {product} available?", "Spare parts are sold for {years} years after the model's release."},
	{"Subscriptions and care", "Is the {product} recyclable?", "Send it back with a free label; we recycle it and give you {percent} percent off."},
}

// Vocabularies the entries draw on.
var (
	brands = []string{"Aurora", "Nimbus", "Vela", "Kestrel", "Orion", "Lumen", "Tundra", "Solace",
		"Quill", "Harbor", "Zephyr", "Cobalt", "Meridian", "Juniper", "Atlas", "Pebble",
		"Summit", "Ember", "Halcyon", "Willow"}
	kinds = []string{"router", "headphones", "smart speaker", "kettle", "e-bike", "mattress",
		"air purifier", "robot vacuum", "coffee grinder", "fitness watch", "tablet", "camera"}
	models = []string{"X2", "Pro 3", "Mini", "S5", "Max", "Lite", "Air", "Plus", "One", "Neo",
		"Ultra", "Go", "Flex", "Duo", "Edge", "Core", "Nova", "Zen", "Aero", "Prime"}
	countries = []string{"Germany", "France", "Spain", "Italy", "the Netherlands", "Poland",
		"Sweden", "Ireland", "Portugal", "Austria", "Belgium", "Denmark"}
	carriers = []string{"DHL", "UPS", "DPD", "GLS", "PostNL", "FedEx"}
	colours  = []string{"black", "white", "blue", "green", "red", "silver", "sand"}
	plans    = []string{"CarePlus", "Shield", "Premium Care", "Protect"}
	wallets  = []string{"PayPal", "Apple Pay", "Google Pay", "Klarna"}
)

// productName is the p-th product: every brand, kind and model once (4800
// products, 153,600 entries), then again as a later mark ("Mk2").
func productName(p int) string {
	name := fmt.Sprintf("%s %s %s", brands[p%len(brands)], kinds[(p/len(brands))%len(kinds)],
		models[(p/(len(brands)*len(kinds)))%len(models)])
	if gen := p / (len(brands) * len(kinds) * len(models)); gen > 0 {
		name += fmt.Sprintf(" Mk%d", gen+1)
	}
	return name
}

// mix is a small deterministic hash of i (splitmix64's finaliser), so the
// details of an entry look arbitrary but never change.
func mix(i uint64) uint64 {
	i += 0x9e3779b97f4a7c15
	i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9
	i = (i ^ (i >> 27)) * 0x94d049bb133111eb
	return i ^ (i >> 31)
}

// fill replaces the placeholders of s with the details of entry i of
// product p.
func fill(s string, p, i int) string {
	h := mix(uint64(i))
	pick := func(list []string, shift uint) string { return list[(h>>shift)%uint64(len(list))] }
	num := func(lo, n uint64, shift uint) string { return fmt.Sprint(lo + (h>>shift)%n) }
	return strings.NewReplacer(
		"{product}", productName(p),
		"{country}", pick(countries, 0),
		"{carrier}", pick(carriers, 8),
		"{colour}", pick(colours, 12),
		"{plan}", pick(plans, 16),
		"{wallet}", pick(wallets, 20),
		"{days}", num(7, 24, 24),
		"{small}", num(2, 4, 30),
		"{hours}", num(12, 36, 34),
		"{years}", num(2, 4, 40),
		"{percent}", num(5, 16, 44),
		"{fee}", "€"+num(4, 46, 48)+".99",
		"{firmware}", num(1, 5, 54)+"."+num(0, 10, 58),
	).Replace(s)
}

// faqEntry is entry i of the FAQ: its product, topic and line.
func faqEntry(i int) (product int, topic, line string) {
	p, t := i/len(faqTemplates), faqTemplates[i%len(faqTemplates)]
	return p, t.topic, fill(t.question, p, i) + " " + fill(t.answer, p, i)
}

// faqQuestion is the question of entry i, as a customer would ask it.
func faqQuestion(i int) string {
	return fill(faqTemplates[i%len(faqTemplates)].question, i/len(faqTemplates), i)
}

// faqFile is the markdown text of entries [from, to): a product heading
// and topic headings wherever they change, then one line per entry.
func faqFile(from, to int) []byte {
	var b strings.Builder
	b.Grow((to - from) * 170)
	product, topic := -1, ""
	for i := from; i < to; i++ {
		p, tp, line := faqEntry(i)
		if p != product {
			fmt.Fprintf(&b, "\n# %s\n", productName(p))
			product, topic = p, ""
		}
		if tp != topic {
			fmt.Fprintf(&b, "\n## %s\n\n", tp)
			topic = tp
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// faqParts cuts n entries into files of at most perFile entries and
// returns their [from, to) ranges.
func faqParts(n, perFile int) [][2]int {
	var parts [][2]int
	for from := 0; from < n; from += perFile {
		parts = append(parts, [2]int{from, min(from+perFile, n)})
	}
	return parts
}

// uncoveredQuestions are asked too: nothing in the FAQ answers them, so
// the service hands them over.
var uncoveredQuestions = []string{
	"Do you sell concert tickets?",
	"Can I pay with cryptocurrency at the opera?",
	"What will the weather be like in Lisbon tomorrow?",
	"Who won the football match last night?",
	"你们卖演唱会门票吗？",
}

// coveredCount is how many covered questions a conversation cycles through.
const coveredCount = 12

// customerMessages is the fixed list customers send, in a cycle: questions
// of entries spread over the n seeded ones, each followed now and then by
// an uncovered one (12 covered, 5 uncovered).
func customerMessages(n int) []string {
	var out []string
	for k := range coveredCount {
		i := (k*n/coveredCount + k*7) % n // spread over the knowledge base, every template
		out = append(out, faqQuestion(i))
		if k%2 == 1 && k/2 < len(uncoveredQuestions) {
			out = append(out, uncoveredQuestions[k/2])
		}
	}
	return out
}

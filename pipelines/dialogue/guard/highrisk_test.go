package guard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHighRiskDefaultsOnInput(t *testing.T) {
	g := compile(t, Config{SafeText: "Help is on the way."})
	cases := []struct {
		text     string
		category string
		matched  string
	}{
		{"I want to kill myself", CategorySelfHarm, "kill myself"},
		{"I've been thinking about SUICIDE lately", CategorySelfHarm, "SUICIDE"},
		{"I can’t see a reason... no reason to live", CategorySelfHarm, "no reason to live"},
		{"我真的不想活了", CategorySelfHarm, "不想活了"},
		{"有时候想自杀", CategorySelfHarm, "自杀"},
		{"I'm going to kill you if this isn't fixed", CategoryThreat, "I'm going to kill you"},
		{"I’ll shoot them all", CategoryThreat, "I’ll shoot them"},
		{"再不退款我就弄死你", CategoryThreat, "弄死你"},
		{"My husband hits me, it's domestic violence", CategoryLegalEmergency, "domestic violence"},
		{"我被家暴了怎么办", CategoryLegalEmergency, "家暴"},
		{"my dad is having a heart attack", CategoryMedicalEmergency, "heart attack"},
		{"I can't breathe", CategoryMedicalEmergency, "can't breathe"},
		{"孩子吃了安眠药", CategoryMedicalEmergency, "吃了安眠药"},
		{"他突然昏迷了", CategoryMedicalEmergency, "昏迷"},
	}
	for _, c := range cases {
		v := g.CheckInput(c.text)
		assert.True(t, v.Transfer, c.text)
		assert.False(t, v.Blocked, c.text)
		assert.Equal(t, "Help is on the way.", v.Text, c.text)
		assert.Equal(t, "high_risk:"+c.category, v.Reason, c.text)
		require.NotEmpty(t, v.Hits, c.text)
		assert.Equal(t, c.matched, v.Hits[0].Matched, c.text)
		assert.Equal(t, HitHighRisk, v.Hits[0].Kind, c.text)
		assert.Equal(t, ActionTransfer, v.Hits[0].Action, c.text)
	}
}

// Ordinary customer-service talk must not hand over: the defaults are
// conservative.
func TestHighRiskDefaultsLeaveOrdinaryTalkAlone(t *testing.T) {
	g := compile(t, Config{})
	for _, s := range []string{
		"These prices will kill you! Rock-bottom deals today.",
		"跳楼价大甩卖，全场五折",
		"设备报警了怎么处理",
		"How do I cut my subscription costs?",
		"The overdue invoice, please",
		"I'd die for a faster delivery lol",
		"My order is killing me, where is it?",
		"Can I return the shoes?",
		"我想退货，快递太慢了",
	} {
		v := g.CheckInput(s)
		assert.False(t, v.Withheld(), s)
		assert.Empty(t, v.Hits, s)
		assert.Equal(t, s, v.Text)
	}
}

func TestHighRiskOnOutput(t *testing.T) {
	g := compile(t, Config{SafeText: "SAFE"})
	v := g.CheckOutput("You could always kill yourself. Or kill myself.")
	assert.True(t, v.Transfer)
	assert.Equal(t, "SAFE", v.Text)
	assert.Equal(t, "high_risk:self_harm", v.Reason)
}

func TestHighRiskTenantLists(t *testing.T) {
	g := compile(t, Config{HighRisk: []HighRisk{
		{Category: "fraud", Keywords: []string{"Wire the money", "汇款到"}, Patterns: []string{`gift ?cards?`}},
		{Category: CategorySelfHarm, Keywords: []string{"unalive myself"}},
	}})
	for text, category := range map[string]string{
		"please wire the money today": "fraud",
		"请汇款到这个账户":                    "fraud",
		"pay with GIFT CARDS":         "fraud",
		"I want to unalive myself":    CategorySelfHarm,
		"I want to kill myself":       CategorySelfHarm, // the defaults stay
	} {
		v := g.CheckInput(text)
		assert.True(t, v.Transfer, text)
		assert.Equal(t, "high_risk:"+category, v.Reason, text)
	}

	// Without the defaults only the tenant's lists count.
	g = compile(t, Config{SkipDefaultHighRisk: true, HighRisk: []HighRisk{{Category: "fraud", Keywords: []string{"wire the money"}}}})
	assert.False(t, g.CheckInput("I want to kill myself").Transfer)
	assert.True(t, g.CheckInput("wire the money").Transfer)
}

func TestDefaultHighRiskIsFresh(t *testing.T) {
	a := DefaultHighRisk()
	a[0].Keywords[0] = "changed"
	a[0].Category = "changed"
	b := DefaultHighRisk()
	assert.Equal(t, CategorySelfHarm, b[0].Category)
	assert.Equal(t, "suicide", b[0].Keywords[0])
	// The defaults compile alone and each category is there.
	g, err := Compile(Config{})
	require.NoError(t, err)
	categories := map[string]bool{}
	for _, l := range b {
		categories[l.Category] = true
		assert.NotEmpty(t, l.Keywords, l.Category)
		for _, k := range l.Keywords {
			v := g.CheckInput(k)
			assert.True(t, v.Transfer, "%q must hit itself", k)
		}
	}
	assert.Len(t, categories, 4)
}

package guard

// Built-in safe texts, released instead of a withheld answer (or for a
// high-risk message) when the tenant configured no safe text of its own:
// in the language of the text the guard checked.
const (
	DefaultSafeTextEN = "I'm sorry, I can't answer that here. I'm connecting you with a member of our team who can help."
	DefaultSafeTextZH = "抱歉，这个问题我无法在此回答，正在为您转接人工客服。"
)

// DefaultSafeText names the built-in safe texts where one string is
// shown (the guardrails settings): both languages.
const DefaultSafeText = DefaultSafeTextEN + " " + DefaultSafeTextZH

// DefaultHighRisk returns the built-in high-risk lists, in English and
// Chinese, as a fresh slice the caller may change.
//
// The lists are conservative: they hold phrases that nearly always mean
// what they say, and leave out words common in ordinary commerce that
// would hand over harmless conversations ("跳楼价" is a rock-bottom price,
// a device "报警" raises an alarm, "this price will kill you" is
// hyperbole). English keywords match as whole words (after case folding,
// so they are written in lower case); Chinese ones match anywhere.
func DefaultHighRisk() []HighRisk {
	return []HighRisk{
		{
			Category: CategorySelfHarm,
			Keywords: []string{
				"suicide", "suicidal", "kill myself", "killing myself", "end my life", "ending my life",
				"take my own life", "taking my own life", "want to die", "self-harm", "self harm",
				"hurt myself", "hurting myself", "cut myself", "cutting myself", "no reason to live",
				"自杀", "轻生", "自残", "自尽", "割腕", "不想活了", "我想死", "结束自己的生命", "了结自己",
			},
		},
		{
			Category: CategoryThreat,
			Keywords: append([]string{
				"bomb threat", "shoot up the", "blow up your", "i know where you live",
				"杀了你", "弄死你", "砍死你", "宰了你", "同归于尽", "炸了你们", "炸掉你们", "我知道你住哪",
			}, firstPersonThreats()...),
		},
		{
			Category: CategoryLegalEmergency,
			Keywords: []string{
				"domestic violence", "restraining order", "kidnapped", "being abused", "held against my will",
				"human trafficking", "being blackmailed", "being extorted", "arrest warrant",
				"家暴", "家庭暴力", "被绑架", "被拘留", "被敲诈", "被勒索", "被非法拘禁", "人口贩卖", "被跟踪",
			},
		},
		{
			Category: CategoryMedicalEmergency,
			Keywords: []string{
				"heart attack", "can't breathe", "cannot breathe", "chest pain", "overdose", "overdosed",
				"seizure", "unconscious", "severe bleeding", "bleeding heavily", "anaphylaxis", "anaphylactic",
				"swallowed poison", "call an ambulance", "call 911",
				"心脏病发作", "喘不过气", "呼吸困难", "胸痛", "昏迷", "晕倒", "大出血", "食物中毒", "中毒了",
				"过量服药", "吃了安眠药", "休克", "叫救护车",
			},
		},
	}
}

// firstPersonThreats spells out "I'm going to kill you" and its kin as
// keywords rather than one regular expression: in the automaton they cost
// nothing per character, where an expression is run over the whole text
// (and, in a stream, again at every delta).
func firstPersonThreats() []string {
	subjects := []string{"i'm going to", "i am going to", "im going to", "i'll", "i will", "i'm gonna", "im gonna"}
	verbs := []string{"kill", "shoot", "stab", "murder", "hurt"}
	objects := []string{"you", "him", "her", "them", "everyone"}
	out := make([]string, 0, len(subjects)*len(verbs)*len(objects))
	for _, s := range subjects {
		for _, v := range verbs {
			for _, o := range objects {
				out = append(out, s+" "+v+" "+o)
			}
		}
	}
	return out
}

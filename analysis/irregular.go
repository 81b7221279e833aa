package analysis

// baseForm maps the irregular English forms customers write to their base
// form before stemming, which only removes regular endings: "I bought it",
// "you sent it", "kept away from" then meet "buy", "send", "keep". Other
// words come back as they are.
func baseForm(w string) string {
	switch w {
	case "bought":
		return "buy"
	case "brought":
		return "bring"
	case "built":
		return "build"
	case "came":
		return "come"
	case "chose", "chosen":
		return "choose"
	case "did", "done":
		return "do"
	case "drove", "driven":
		return "drive"
	case "ate", "eaten":
		return "eat"
	case "fell", "fallen":
		return "fall"
	case "felt":
		return "feel"
	case "found":
		return "find"
	case "forgot", "forgotten":
		return "forget"
	case "gave", "given":
		return "give"
	case "went", "gone":
		return "go"
	case "grew", "grown":
		return "grow"
	case "hung":
		return "hang"
	case "held":
		return "hold"
	case "kept":
		return "keep"
	case "knew", "known":
		return "know"
	case "laid":
		return "lay"
	case "left":
		return "leave"
	case "lent":
		return "lend"
	case "lost":
		return "lose"
	case "made":
		return "make"
	case "meant":
		return "mean"
	case "met":
		return "meet"
	case "paid":
		return "pay"
	case "rode":
		return "ride"
	case "ran":
		return "run"
	case "said":
		return "say"
	case "saw", "seen":
		return "see"
	case "sold":
		return "sell"
	case "sent":
		return "send"
	case "shook":
		return "shake"
	case "shipped":
		return "ship"
	case "shown":
		return "show"
	case "shrank", "shrunk":
		return "shrink"
	case "spent":
		return "spend"
	case "spoke", "spoken":
		return "speak"
	case "spilt":
		return "spill"
	case "stood":
		return "stand"
	case "stole", "stolen":
		return "steal"
	case "stuck":
		return "stick"
	case "struck":
		return "strike"
	case "took", "taken":
		return "take"
	case "taught":
		return "teach"
	case "tore", "torn":
		return "tear"
	case "told":
		return "tell"
	case "thought":
		return "think"
	case "threw", "thrown":
		return "throw"
	case "understood":
		return "understand"
	case "woke":
		return "wake"
	case "wore", "worn":
		return "wear"
	case "won":
		return "win"
	case "wrote", "written":
		return "write"
	case "broke", "broken":
		return "break"
	case "caught":
		return "catch"
	case "dealt":
		return "deal"
	case "drew", "drawn":
		return "draw"
	case "fed":
		return "feed"
	case "fought":
		return "fight"
	case "flew", "flown":
		return "fly"
	case "froze", "frozen":
		return "freeze"
	case "hid", "hidden":
		return "hide"
	case "led":
		return "lead"
	case "slept":
		return "sleep"
	case "children":
		return "child"
	case "feet":
		return "foot"
	case "teeth":
		return "tooth"
	case "men":
		return "man"
	case "women":
		return "woman"
	case "mice":
		return "mouse"
	}
	return w
}

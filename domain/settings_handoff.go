package domain

import "time"

// HandoffTexts are what a customer waiting for a person reads, per
// language; nil fields are the built-in texts.
type HandoffTexts struct {
	// WaitingEN and WaitingZH are said once, to the first message after
	// the hand-off.
	WaitingEN *string
	WaitingZH *string
	// FallbackEN and FallbackZH are said once when no agent claimed the
	// conversation within Wait.
	FallbackEN *string
	FallbackZH *string
	// Wait is how long a customer waits for an agent before the fallback
	// text; nil is DefaultHandoffWait.
	Wait *time.Duration
}

// Built-in texts and wait of a hand-off.
const (
	DefaultWaitingMessageEN  = "A member of our team will be with you shortly. Your messages are passed on to them."
	DefaultWaitingMessageZH  = "人工客服将尽快为您服务，您的消息会转交给客服人员。"
	DefaultFallbackMessageEN = "Sorry, all of our team are busy right now. Leave your question here and we will get back to you as soon as we can."
	DefaultFallbackMessageZH = "抱歉，目前客服人员都在忙。请留下您的问题，我们会尽快回复您。"
	DefaultHandoffWait       = 5 * time.Minute
)

// WaitingMessage is the waiting text for lang ("zh", else English).
func (t HandoffTexts) WaitingMessage(lang string) string {
	return pick(lang, t.WaitingEN, t.WaitingZH, DefaultWaitingMessageEN, DefaultWaitingMessageZH)
}

// FallbackMessage is the text after the wait ran out, for lang.
func (t HandoffTexts) FallbackMessage(lang string) string {
	return pick(lang, t.FallbackEN, t.FallbackZH, DefaultFallbackMessageEN, DefaultFallbackMessageZH)
}

// WaitLimit is how long a customer waits before the fallback text.
func (t HandoffTexts) WaitLimit() time.Duration {
	if t.Wait != nil {
		return *t.Wait
	}
	return DefaultHandoffWait
}

func pick(lang string, en, zh *string, defEN, defZH string) string {
	switch {
	case lang == "zh" && zh != nil:
		return *zh
	case lang == "zh":
		return defZH
	case en != nil:
		return *en
	}
	return defEN
}

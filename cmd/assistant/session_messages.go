package main

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
)

// followSessionMessages publishes to this replica's session watchers every
// message that joined a session outside a bot's reply, on any replica (an
// agent's reply, a customer's message to a person): the notification
// names it, and the message is read back from PostgreSQL.
func (a *app) followSessionMessages(ctx context.Context) {
	a.store.ListenSessionMessages(ctx, func(tenant domain.TenantID, session, id string) {
		if a.dialogue.Observer().Watchers(tenant, session) == 0 {
			return
		}
		m, err := a.store.GetMessage(ctx, tenant, session, id)
		if err != nil {
			a.log.WarnContext(ctx, "session message not published", "session", session, "message", id, "err", err)
			return
		}
		a.dialogue.Observer().PublishMessage(m)
	})
}

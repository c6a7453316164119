/**
 * `/orders alert add|list|remove|help` (issue 15), routed here by commands/orders.ts after its
 * ack. Adding and removing are for admins; anyone may list.
 */
import type { RespondFn, SlashCommand } from '@slack/bolt';
import { parseAlertCommand } from '../../alerts/grammar.js';
import type { AlertScheduler } from '../../alerts/scheduler.js';
import { type AlertUseCaseDeps, addAlert, listAlerts, removeAlert } from '../../alerts/subscriptions.js';
import { renderAlertHelp, renderAlertList } from '../../blocks/alerts.js';
import { renderDigestAnswer } from '../../blocks/digest.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import { escapeClip, escapeText } from '../../blocks/text.js';
import { toLocale } from '../../lookups/locale.js';
import type { SlackDeps } from '../deps.js';
import type { DigestSlackDeps } from '../digest/types.js';

/** The alert use cases' dependencies, from the Slack wiring (also the App Home's form). */
export function alertUseCase(
  deps: SlackDeps,
  digests: DigestSlackDeps,
  scheduler: AlertScheduler,
): AlertUseCaseDeps {
  return {
    store: deps.store,
    scheduler,
    resolveShop: digests.resolveShop,
    now: () => deps.now().getTime(),
    priceOf: digests.priceOf,
  };
}

export function isAlertCommand(text: string): boolean {
  return /^\s*alerts?(\s|$)/i.test(text);
}

export async function answerAlertCommand(
  deps: SlackDeps,
  command: SlashCommand,
  respond: RespondFn,
): Promise<void> {
  const reply = (m: RenderedMessage) => respond({ response_type: 'ephemeral', ...m });
  const w = await deps.language.user(command.user_id);
  const { t } = w;
  const scheduler = deps.digests?.alerts;
  if (!deps.digests || !scheduler)
    return void (await reply(renderDigestAnswer(t('shipAlert.answer.notEnabled'))));
  const useCase = alertUseCase(deps, deps.digests, scheduler);
  const parsed = parseAlertCommand(
    command.text.replace(/^\s*alerts?/i, ''),
    { channelId: command.channel_id, channelName: command.channel_name },
    toLocale,
  );
  const admin = await deps.isAdmin(command.user_id);
  const onlyAdmins = () => reply(renderDigestAnswer(t('shipAlert.answer.onlyAdmins')));
  switch (parsed.kind) {
    case 'help':
      return void (await reply(renderAlertHelp(w)));
    case 'invalid':
      return void (await reply(renderAlertHelp(w, parsed.problems)));
    case 'list':
      return void (await reply(renderAlertList(w, await listAlerts(useCase))));
    case 'remove': {
      if (!admin) return void (await onlyAdmins());
      const removed = await removeAlert(useCase, parsed.id, command.user_id);
      await reply(
        renderDigestAnswer(
          t(removed ? 'shipAlert.answer.removed' : 'shipAlert.answer.noSuchId', { id: parsed.id }),
        ),
      );
      return;
    }
    case 'add': {
      if (!admin) return void (await onlyAdmins());
      const added = await addAlert(useCase, parsed, command.user_id);
      if (added.kind === 'unknown_shop')
        return void (await reply(
          renderDigestAnswer(t('shipAlert.answer.unknownShop', { shop: escapeClip(parsed.shop, 64) })),
        ));
      if (added.kind === 'exists')
        return void (await reply(
          renderDigestAnswer(t('shipAlert.answer.exists', { id: added.subscription.id })),
        ));
      const sub = added.subscription;
      // Alerts speak the channel's language: the one chosen here, else the workspace default.
      if (parsed.locale)
        await deps.language.settings.setChannel(sub.channelId, parsed.locale, command.user_id);
      await reply(
        renderDigestAnswer(
          t('shipAlert.answer.added', {
            id: sub.id,
            owner: escapeClip(sub.ownerId, 64),
            within: w.count(sub.withinHours),
            every: w.count(sub.everyMinutes),
            from: sub.hoursFrom,
            to: sub.hoursTo,
            zone: escapeText(w.zone(sub.timeZone)),
            channel: `<#${sub.channelId}>`,
            cap: w.points(sub.capPoints),
            perCheck: added.estimatePoints === null ? '—' : w.points(added.estimatePoints),
            next: w.dateTime(new Date(added.nextCheckAt), sub.timeZone),
          }),
        ),
      );
      return;
    }
  }
}

/**
 * `/waybill` end to end: print data by shop (platdybw) and waybill information by owner
 * (platdzmd), batches of 20, per-waybill failures, and input that is refused before any call.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { buttonOf, looksLikeStackTrace, textOf, useHarness } from '../helpers/platdesk-harness.js';

const { waybills, shops, owners } = SANDBOX_FIXTURES;
/** Numbers of the SF shape that are not in the fixtures (each fails on its own). */
const unknownSf = (n: number) => Array.from({ length: n }, (_, i) => `SF${String(i + 1).padStart(13, '0')}`);

describe('/waybill', () => {
  const h = useHarness();

  it.each([
    ['', 'give at least one waybill number'],
    [`shop:${shops.clothing}`, 'give at least one waybill number'],
    [waybills.ok[0] ?? '', 'say whose waybills'],
    [`X shop:1 ${unknownSf(201).join(' ')}`, 'at most 200 waybill numbers at once (202 given)'],
    [`${waybills.ok[0]} shop:1 owner:2`, 'give either shop: or owner:, not both'],
    [`abc shop:${shops.clothing}`, 'not waybill numbers: ABC'],
    [`${waybills.ok[0]} shop:1 color:red`, 'unknown option color:red'],
    [`${waybills.ok[0]} owner:1 carrier:z`, 'carrier must be a code such as ZTO'],
  ])('answers %j with the usage line and its problems, and makes no call', async (text, problem) => {
    const said = await h().refused('/waybill', text);
    expect(said).toContain(problem);
  });

  it('asks for the carrier of a number whose shape does not tell (owner:), without a call', async () => {
    const sent = await h().command('/waybill', `773012345678901 owner:${owners.busy}`);
    const said = textOf(await h().nextResponse(sent.responseUrlId));
    expect(said).toContain('cannot tell the carrier of 773012345678901 (could be ZTO or STO)');
    expect(said).toContain('add carrier:&lt;code&gt;');
    expect(h().calls()).toBe(0);
  });

  it('print data by shop: one line per waybill, the failing one with its own error, one call', async () => {
    const before = h().sandbox.stats().callsByOperation.platdybw;
    const numbers = [...waybills.ok, waybills.failing];
    const { confirmation } = await h().ask('/waybill', `${numbers.join(' ')} shop:${shops.clothing}`);
    expect(confirmation.text).toContain('Waybill print data (basic)');
    expect(confirmation.text).toContain(`for 6 waybills of shop ${shops.clothing}`);
    const { answer } = await h().confirm(confirmation);
    const said = textOf(answer);
    for (const n of waybills.ok) expect(said).toMatch(new RegExp(`:white_check_mark: \`${n}\``));
    // The first marketplace's code, in words (issue 35): not "isv.waybill-not-exist".
    expect(said).toContain(`:x: \`${waybills.failing}\`: no such waybill`);
    expect(said).not.toContain('isv.');
    expect(said).toContain('5 found, 1 failed');
    expect(said).toMatch(/Charged \d+ points? \(¥/);
    await h().settle();
    expect(h().sandbox.stats().callsByOperation.platdybw - before).toBe(1);
  });

  it('the Download button sends the print data file by direct message, without a call', async () => {
    const { confirmation } = await h().ask('/waybill', `${waybills.ok[0]} shop:${shops.clothing}`);
    const { answer } = await h().confirm(confirmation);
    const before = h().calls();
    const download = buttonOf(answer, 'platdesk.waybill.download');
    const click = await h().click(download.actionId, download.value);
    expect(click.status).toBe(200);
    expect(textOf(await h().nextResponse(click.responseUrlId))).toContain('in your direct messages');
    const open = await h().fake.waitFor('conversations.open');
    expect(open.body.users).toBe('U1234');
    const upload = await h().fake.waitFor('file_upload');
    const complete = await h().fake.waitFor('files.completeUploadExternal');
    expect(complete.body.channel_id).toBe('D1234');
    expect(upload.bytes?.toString('utf8')).toContain('encryptedData');
    // The print data never goes into a message.
    for (const m of h().messages()) expect(JSON.stringify(m)).not.toContain('encryptedData');
    expect(h().calls()).toBe(before);
  });

  it('a click on Download by another user gets nothing', async () => {
    const { confirmation } = await h().ask('/waybill', `${waybills.ok[1]} shop:${shops.clothing}`);
    const { answer } = await h().confirm(confirmation);
    const uploads = h().fake.callsTo('file_upload').length;
    const download = buttonOf(answer, 'platdesk.waybill.download');
    const click = await h().click(download.actionId, download.value, { userId: 'U5678' });
    expect(textOf(await h().nextResponse(click.responseUrlId))).toContain('no longer available to you');
    expect(h().fake.callsTo('file_upload').length).toBe(uploads);
  });

  it('25 numbers go in two calls (batches of 20), stated in the confirmation', async () => {
    const before = h().sandbox.stats().callsByOperation.platdybw;
    const numbers = [...waybills.ok, ...unknownSf(20)];
    const { confirmation } = await h().ask('/waybill', `${numbers.join(' ')} shop:${shops.clothing}`);
    expect(confirmation.text).toContain('2 calls');
    const { answer } = await h().confirm(confirmation);
    expect(textOf(answer)).toContain('5 found, 20 failed');
    await h().settle();
    expect(h().sandbox.stats().callsByOperation.platdybw - before).toBe(2);
  });

  it('waybill information by owner with carrier:ZTO makes one platdzmd call', async () => {
    const before = h().sandbox.stats().callsByOperation.platdzmd;
    const { confirmation } = await h().ask(
      '/waybill',
      `7312345678901 773012345678901 owner:${owners.busy} carrier:ZTO`,
    );
    expect(confirmation.text).toContain('Waybill information (enhanced)');
    expect(confirmation.text).toContain(`for 2 waybills of owner ${owners.busy}`);
    const { answer } = await h().confirm(confirmation);
    const said = textOf(answer);
    expect(said).toContain('7312345678901');
    expect(said).toContain('773012345678901');
    expect(said).toContain('已揽收');
    expect(said).toMatch(/Charged \d+ points? \(¥/);
    await h().settle();
    expect(h().sandbox.stats().callsByOperation.platdzmd - before).toBe(1);
  });

  it('every message the fake received fits Slack limits', () => {
    h().assertAllWithinLimits();
    for (const m of h().messages()) expect(looksLikeStackTrace(textOf(m))).toBe(false);
  });
});

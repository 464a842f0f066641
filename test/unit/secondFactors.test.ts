import { create } from 'qrcode';
import { qrCodeSvg } from '../../api/console/qrCode';
import { anySecondFactor, secondFactorsFrom } from '../../core/users/secondFactors';
import type { UserRecord } from '../../core/users/store';

const person = (fields: Partial<UserRecord> = {}): UserRecord => ({
  _id: 'usr_1',
  orgId: 'org_1',
  workspaceId: 'ws_1',
  applicationId: 'app_1',
  email: 'ada@example.com',
  permissions: ['candidates.search'],
  passwordHash: 'scrypt$x',
  setupTokenHash: null,
  setupExpiresAt: null,
  disabledAt: null,
  ...fields,
});

test('a second factor is an authenticator app that is turned on, or a passkey; recovery codes alone are none', async () => {
  expect(anySecondFactor({ authenticatorApp: false, passkeys: 0, recoveryCodes: 10 })).toBe(false);
  expect(anySecondFactor({ authenticatorApp: true, passkeys: 0, recoveryCodes: 0 })).toBe(true);
  expect(anySecondFactor({ authenticatorApp: false, passkeys: 1, recoveryCodes: 0 })).toBe(true);
  // A secret offered but not yet confirmed with a first code is no factor.
  expect(secondFactorsFrom(person({ totpPendingSealed: 'v2.sealed' }), 0)).toEqual({ authenticatorApp: false, passkeys: 0, recoveryCodes: 0 });
  expect(secondFactorsFrom(person({}), 2)).toEqual({ authenticatorApp: false, passkeys: 2, recoveryCodes: 0 });
  expect(secondFactorsFrom(person({ totpSecretSealed: 'v2.sealed', recoveryCodeHashes: ['a', 'b'] }), 0)).toEqual({
    authenticatorApp: true,
    passkeys: 0,
    recoveryCodes: 2,
  });
});

test('the QR code is inline SVG markup with one square per dark module of the symbol, and its label escaped', () => {
  const uri = 'otpauth://totp/Talent%20platform:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Talent%20platform';
  const svg = String(qrCodeSvg(uri, 'QR code <of> "Ada"'));
  const { modules } = create(uri, { errorCorrectionLevel: 'M' });
  const dark = modules.data.reduce((n, bit) => n + (bit ? 1 : 0), 0);
  expect(svg.match(/h1v1h-1z/g)).toHaveLength(dark);
  expect(svg).toContain(`viewBox="0 0 ${modules.size + 4} ${modules.size + 4}"`);
  expect(svg).toContain('aria-label="QR code &lt;of&gt; &quot;Ada&quot;"');
  expect(svg).not.toMatch(/<script|style=|href=/);
});

"""Schemathesis hooks of the contract test (test/integration/openApiContract.test.ts).

Every valid Idempotency-Key a case carries gets a fresh tail of the same length before it is
sent. Cases of one operation draw the same few valid keys, and a key seen before with another
body is answered 409 `idempotency_key_reused` before the body is read: without fresh keys most
cases of a paid operation test that one rule instead of what they were drawn to test. Keys that
break the key's pattern are sent as drawn, so the key's own validation is still tested.
"""

import os
import re
import secrets
import string

import schemathesis

VALID_KEY = re.compile(os.environ["TALENT_IDEMPOTENCY_KEY_PATTERN"])
TAIL = 8
ALPHABET = string.ascii_letters + string.digits


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    headers = case.headers or {}
    for name, value in headers.items():
        if name.lower() == "idempotency-key" and isinstance(value, str) and VALID_KEY.fullmatch(value):
            headers[name] = value[:-TAIL] + "".join(secrets.choice(ALPHABET) for _ in range(TAIL))

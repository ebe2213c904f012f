"""Verifies the signature of a Commodity Data Service webhook delivery (docs/notifications.md).

Python 3.8 or newer, standard library only. Copy verify_cds_signature into your receiver.
"""
import hashlib
import hmac
import os
import re
import sys
import time
from typing import Optional, Tuple

# Refuse deliveries whose timestamp is more than 5 minutes from this clock (replays).
TOLERANCE_SECONDS = 300


def verify_cds_signature(
    raw_body: bytes, header: Optional[str], secret: str, now: Optional[float] = None
) -> Tuple[bool, str]:
    """Checks the CDS-Signature header (t=<unix seconds>,v1=<hex HMAC-SHA256>) of a delivery.

    raw_body: the request body exactly as received, before any JSON parsing.
    header: the value of the CDS-Signature header.
    secret: the endpoint's signing secret, whsec_... (the whole string is the key).
    Returns (True, "ok") or (False, "malformed" | "stale" | "mismatch").
    """
    if header is None:
        return False, "malformed"
    timestamp = None
    signatures = []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t" and re.fullmatch(r"\d+", value):
            timestamp = int(value)
        elif key == "v1" and re.fullmatch(r"[0-9a-f]{64}", value):
            signatures.append(value)
    if timestamp is None or not signatures:
        return False, "malformed"
    if abs((time.time() if now is None else now) - timestamp) > TOLERANCE_SECONDS:
        return False, "stale"
    signed = str(timestamp).encode() + b"." + raw_body
    expected = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
    # compare_digest: the comparison takes as long whichever character differs.
    if any(hmac.compare_digest(signature, expected) for signature in signatures):
        return True, "ok"
    return False, "mismatch"


# Command line (used by the project's tests):
#   CDS_WEBHOOK_SECRET=whsec_... python3 verify_webhook.py '<CDS-Signature>' < body.json
# prints "ok" or the reason and exits 0 or 1.
if __name__ == "__main__":
    ok, reason = verify_cds_signature(
        sys.stdin.buffer.read(), sys.argv[1] if len(sys.argv) > 1 else None, os.environ.get("CDS_WEBHOOK_SECRET", "")
    )
    print(reason)
    sys.exit(0 if ok else 1)

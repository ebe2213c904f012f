/* global document, window, navigator, setTimeout, Element, HTMLInputElement, TextEncoder, crypto */
// The dashboard's only script: copy buttons and select-on-focus for the one-time key display, and
// the proof-of-work check of the sign-up and log-in forms when the server asks for one. Pages work
// without it, except a form that carries such a check (it says so until this script removes the notice).
'use strict';

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const input = document.getElementById(button.getAttribute('data-copy') || '');
  if (!input) return;
  const done = () => {
    const label = button.textContent;
    button.textContent = 'Copied';
    button.setAttribute('aria-live', 'polite');
    setTimeout(() => (button.textContent = label), 2000);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, () => {
      input.select();
      document.execCommand('copy');
      done();
    });
  } else {
    input.select();
    document.execCommand('copy');
    done();
  }
});

document.addEventListener('focusin', (event) => {
  const el = event.target;
  if (el instanceof HTMLInputElement && el.hasAttribute('data-select-on-focus')) el.select();
});

// Proof of work (services/dashboard/src/security/challenge.ts): find a decimal nonce whose
// SHA-256 of `<challenge>:<nonce>` starts with `bits` zero bits. Started when the page loads, so it
// is usually done before the form is filled; a submit meanwhile waits for it, then goes on.
const zeroBits = (bytes) => {
  let bits = 0;
  for (const byte of bytes) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
};

async function solveChallenge(challenge, bits) {
  const encoder = new TextEncoder();
  const BATCH = 512;
  for (let base = 0; base < 1e9; base += BATCH) {
    const digests = [];
    for (let i = base; i < base + BATCH; i++) {
      digests.push(crypto.subtle.digest('SHA-256', encoder.encode(`${challenge}:${i}`)));
    }
    const done = await Promise.all(digests);
    for (let j = 0; j < done.length; j++) {
      if (zeroBits(new Uint8Array(done[j])) >= bits) return String(base + j);
    }
  }
  throw new Error('no nonce found');
}

const nonceInput = document.querySelector('input[data-pow-challenge]');
if (nonceInput instanceof HTMLInputElement && nonceInput.form) {
  const form = nonceInput.form;
  form.querySelector('[data-pow-needs-script]')?.remove();
  const status = form.querySelector('[data-pow-status]');
  const say = (text) => {
    if (!status) return;
    status.hidden = false;
    status.textContent = text;
  };
  let submitWhenSolved = false;
  if (!window.crypto || !crypto.subtle) {
    say(
      'This form needs a short check that your browser cannot run on this connection (it needs HTTPS). Try again later.',
    );
  } else {
    say('Your browser is doing a short check before this form can be sent (a few seconds)…');
    const started = Date.now();
    solveChallenge(
      nonceInput.getAttribute('data-pow-challenge') || '',
      Number(nonceInput.getAttribute('data-pow-bits')),
    )
      .then((nonce) => {
        nonceInput.value = nonce;
        say(`Check done (${((Date.now() - started) / 1000).toFixed(1)} s).`);
        if (submitWhenSolved) form.submit();
      })
      .catch(() => say('The check failed in your browser; reload the page to try again.'));
  }
  form.addEventListener('submit', (event) => {
    if (nonceInput.value !== '') return;
    event.preventDefault();
    submitWhenSolved = true;
    say('Still checking; the form is sent as soon as the check is done…');
  });
}

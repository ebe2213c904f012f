/* global document, window, navigator, setTimeout, Element, HTMLInputElement */
// The dashboard's only script: copy buttons and select-on-focus for the one-time key display.
// Pages work without it.
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

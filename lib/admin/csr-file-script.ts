/**
 * The interface's one script, served from the package at a URL that carries its hash (like the
 * stylesheet, style.ts) under the Content-Security-Policy's `script-src 'self'`: on the issue page it
 * reads a chosen CSR file into the CSR box — PEM as it is, DER (binary) turned into PEM here in the
 * browser. Nothing is uploaded by it: the form still sends the box's text. The file field is `hidden`
 * in the HTML and shown by the script, so that without JavaScript the page offers only what works
 * (pasting); the field has no `name`, so a form sent without the script carries no file either.
 */
import { createHash } from 'crypto';

export const CSR_FILE_SCRIPT = `'use strict';
(function () {
  var input = document.getElementById('csr-file');
  var box = document.getElementById('csr');
  var status = document.getElementById('csr-file-status');
  if (!input || !box || !status) return;
  input.closest('.field').hidden = false;

  function derToPem(bytes) {
    var binary = '';
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    var lines = btoa(binary).match(/.{1,64}/g) || [];
    return '-----BEGIN CERTIFICATE REQUEST-----\\n' + lines.join('\\n') + '\\n-----END CERTIFICATE REQUEST-----';
  }

  input.addEventListener('change', function () {
    var file = input.files && input.files[0];
    if (!file) return;
    if (file.size > 65536) {
      status.textContent = file.name + ' is too large for a CSR (at most 64 KiB).';
      return;
    }
    file.arrayBuffer().then(
      function (buffer) {
        var bytes = new Uint8Array(buffer);
        var text = new TextDecoder().decode(bytes);
        box.value = text.indexOf('-----BEGIN') >= 0 ? text.trim() : derToPem(bytes);
        status.textContent = 'Read ' + file.name + ' into the box above: press Read CSR or Preview.';
        input.setAttribute('data-loaded', 'true');
      },
      function () {
        status.textContent = file.name + ' could not be read.';
      }
    );
  });
})();
`;

export const CSR_FILE_SCRIPT_HASH = createHash('sha256').update(CSR_FILE_SCRIPT).digest('hex').slice(0, 16);

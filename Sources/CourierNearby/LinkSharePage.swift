import Crypto
import Foundation

/// The page a browser opens for a share via link: one small HTML document, its style and script
/// inline, nothing loaded from anywhere else. It is the same bytes for every share — nothing of a
/// share is written into it on the server; its script asks `prepare-download` (with the PIN from
/// its form, or `?pin=` in the address) and shows each file's name with `textContent`, so a name
/// is always text, never markup. The Content-Security-Policy allows only this script and this
/// style (by their SHA-256) and requests to this server: even markup that got into the page could
/// run nothing and load nothing.
enum LinkSharePage {
    static let style = """
        body{font-family:sans-serif;margin:1rem auto;max-width:40rem;padding:0 1rem;line-height:1.5}\
        ul{list-style:none;padding:0}li{margin:.5rem 0;padding:.5rem;border:1px solid #bbb;border-radius:.4rem}\
        a{word-break:break-all}.size{color:#555;margin-left:.5rem}input{font-size:1.2rem;width:10rem}
        """

    static let script = """
        (function () {
          var api = '/api/localsend/v2/';
          var status = document.getElementById('status');
          var list = document.getElementById('files');
          var form = document.getElementById('pin-form');
          var input = document.getElementById('pin');
          function say(text) { status.textContent = text; }
          function size(n) {
            var units = ['B', 'KB', 'MB', 'GB', 'TB'], i = 0;
            while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
            return (i === 0 ? n : n.toFixed(1)) + ' ' + units[i];
          }
          function show(data) {
            sessionStorage.setItem('sessionId', data.sessionId);
            form.hidden = true;
            list.textContent = '';
            var ids = Object.keys(data.files);
            say(ids.length + (ids.length === 1 ? ' file' : ' files') + ' from ' + data.info.alias);
            ids.forEach(function (id) {
              var file = data.files[id];
              var item = document.createElement('li');
              var link = document.createElement('a');
              link.href = api + 'download?sessionId=' + encodeURIComponent(data.sessionId) + '&fileId=' + encodeURIComponent(id);
              link.setAttribute('download', file.fileName);
              link.textContent = file.fileName;
              var bytes = document.createElement('span');
              bytes.className = 'size';
              bytes.textContent = size(file.size);
              item.appendChild(link);
              item.appendChild(bytes);
              list.appendChild(item);
            });
          }
          function ask(query, withPIN) {
            var request = new XMLHttpRequest();
            request.open('POST', api + 'prepare-download' + query);
            request.onload = function () {
              var message = '';
              try { message = JSON.parse(request.responseText).message || ''; } catch (e) {}
              if (request.status === 200) { show(JSON.parse(request.responseText)); return; }
              if (request.status === 401) {
                form.hidden = false;
                say(withPIN ? 'Wrong PIN.' : 'Enter the PIN shown on the sharing computer.');
              } else if (request.status === 429) {
                form.hidden = false;
                say('A wrong PIN was tried a moment ago: wait a second, then try again.');
              } else {
                form.hidden = true;
                say(message || ('The share answered ' + request.status + '.'));
              }
            };
            request.onerror = function () { say('The share cannot be reached: it may have ended.'); };
            request.send();
          }
          form.addEventListener('submit', function (event) {
            event.preventDefault();
            ask('?pin=' + encodeURIComponent(input.value), true);
          });
          var pin = new URLSearchParams(location.search).get('pin');
          var session = sessionStorage.getItem('sessionId');
          if (session) {
            ask('?sessionId=' + encodeURIComponent(session) + (pin ? '&pin=' + encodeURIComponent(pin) : ''), !!pin);
          } else if (pin) {
            ask('?pin=' + encodeURIComponent(pin), true);
          } else {
            form.hidden = false;
            say('Enter the PIN shown on the sharing computer.');
          }
        })();
        """

    static let html = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>Courier share</title>
        <style>\(style)</style>
        </head><body>
        <h1>Courier share</h1>
        <noscript>This page needs JavaScript to list the files.</noscript>
        <p id="status">Loading…</p>
        <form id="pin-form" hidden><label>PIN <input id="pin" inputmode="numeric" autocomplete="one-time-code" required></label> <button>Show the files</button></form>
        <ul id="files"></ul>
        <script>\(script)</script>
        </body></html>

        """

    static let body = Data(html.utf8)

    /// Allows this page's own script and style, requests to this server, and nothing else.
    static let contentSecurityPolicy = "default-src 'none'; script-src '\(hash(script))'; style-src '\(hash(style))'; connect-src 'self'; "
        + "img-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

    private static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString()
    }
}

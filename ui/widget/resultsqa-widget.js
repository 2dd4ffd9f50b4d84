/* resultsqa widget: a dependency-free chat box for wikis and intranet pages.
 *
 * Why it looks like this: wikis (Confluence HTML macro, MediaWiki widgets, Notion-style
 * embeds) allow one <script> and one <div>, and their CSS must not leak in or out, so the
 * widget renders into a Shadow DOM, writes every server string with textContent (never
 * innerHTML), and only links citation URLs that are http(s). It talks to
 * POST /v1/ask/stream (Server-Sent Events over fetch, because EventSource cannot POST) and
 * keeps the conversation_id so follow-up questions work, and sends the earlier questions as
 * `history` so a follow-up that reaches another API worker is answered in context too.
 *
 *   <div data-resultsqa data-api="https://resultsqa.example.org" data-key="(optional)"></div>
 *   <script src="https://resultsqa.example.org/widget/resultsqa-widget.js" defer></script>
 */
(function () {
  "use strict";

  var SCRIPT = document.currentScript;
  var DEFAULT_API = SCRIPT && SCRIPT.src ? new URL(SCRIPT.src, location.href).origin : location.origin;

  var CSS = [
    ":host{all:initial;display:block;font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1b1f24}",
    ".box{border:1px solid #d0d7de;border-radius:8px;padding:10px;max-width:760px;background:#fff}",
    ".title{font-weight:600;margin:0 0 8px}",
    ".log{max-height:420px;overflow:auto;margin-bottom:8px}",
    ".q{background:#f0f3f6;border-radius:6px;padding:6px 8px;margin:6px 0}",
    ".a{padding:6px 8px;margin:6px 0;white-space:pre-wrap}",
    ".a.error{color:#a40e26}",
    ".notes{color:#57606a;font-size:12px;margin:2px 8px}",
    ".sources{font-size:12px;margin:2px 8px}.sources a{color:#0969da;margin-right:8px}",
    "form{display:flex;gap:6px}input{flex:1;padding:6px 8px;border:1px solid #d0d7de;border-radius:6px;font:inherit}",
    "button{padding:6px 12px;border:0;border-radius:6px;background:#0969da;color:#fff;font:inherit;cursor:pointer}",
    "button[disabled]{opacity:.6;cursor:default}"
  ].join("\n");

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text) node.textContent = text;
    return node;
  }

  function safeUrl(url) {
    try {
      var u = new URL(url, location.href);
      return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
    } catch (e) { return null; }
  }

  /* Parse Server-Sent Events from a text buffer: returns [events, rest]. */
  function parseEvents(buffer) {
    var events = [];
    var blocks = buffer.replace(/\r\n/g, "\n").split("\n\n");
    var rest = blocks.pop();
    blocks.forEach(function (block) {
      var ev = { event: "message", data: [] };
      block.split("\n").forEach(function (line) {
        if (!line || line.charAt(0) === ":") return;
        var i = line.indexOf(":");
        var field = i < 0 ? line : line.slice(0, i);
        var value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
        if (field === "event") ev.event = value;
        else if (field === "data") ev.data.push(value);
      });
      if (ev.data.length) events.push({ event: ev.event, data: ev.data.join("\n") });
    });
    return [events, rest];
  }

  function mount(host, options) {
    options = options || {};
    var api = (options.api || host.getAttribute("data-api") || DEFAULT_API).replace(/\/+$/, "");
    var key = options.key || host.getAttribute("data-key") || "";
    var title = options.title || host.getAttribute("data-title") || "Ask about MLPerf Inference results";
    var root = host.attachShadow ? host.attachShadow({ mode: "open" }) : host;
    var style = el("style"); style.textContent = CSS; root.appendChild(style);
    var box = el("div", "box"); root.appendChild(box);
    box.appendChild(el("p", "title", title));
    var log = el("div", "log"); log.setAttribute("aria-live", "polite"); box.appendChild(log);
    var form = el("form");
    var input = el("input"); input.type = "text"; input.name = "question"; input.maxLength = 2000;
    input.placeholder = "e.g. Which system had the best Llama 2 70B Offline result in v6.1?";
    input.setAttribute("aria-label", "Question");
    var button = el("button", null, "Ask"); button.type = "submit";
    form.appendChild(input); form.appendChild(button); box.appendChild(form);
    var conversationId = null;
    var asked = [];  // earlier questions: rebuild the conversation on a worker that never saw it

    function finish(answerNode, answer) {
      answerNode.textContent = answer.answer || "";
      answerNode.setAttribute("data-status", answer.status || "");
      if (answer.status === "error") answerNode.classList.add("error");
      if (answer.conversation_id) conversationId = answer.conversation_id;
      if (answer.question && answer.status !== "error") asked.push(answer.question);
      if (answer.notes && answer.notes.length) log.appendChild(el("div", "notes", answer.notes.join(" ")));
      var cites = (answer.citations || []).slice(0, 12);
      if (cites.length) {
        var list = el("div", "sources", "Sources: ");
        cites.forEach(function (c) {
          var href = c.url ? safeUrl(c.url) : null;
          var link = el(href ? "a" : "span", null, c.title || c.id);
          if (href) { link.href = href; link.target = "_blank"; link.rel = "noopener noreferrer"; }
          link.setAttribute("data-citation", c.id);
          list.appendChild(link);
        });
        log.appendChild(list);
      }
    }

    function fail(answerNode, message) {
      answerNode.textContent = message;
      answerNode.classList.add("error");
      answerNode.setAttribute("data-status", "error");
    }

    async function ask(question) {
      log.appendChild(el("div", "q", question));
      var answerNode = el("div", "a", "…");
      log.appendChild(answerNode);
      var headers = { "Content-Type": "application/json", "Accept": "text/event-stream" };
      if (key) headers.Authorization = "Bearer " + key;
      var body = { question: question };
      if (conversationId) body.conversation_id = conversationId;
      if (asked.length) body.history = asked.slice(-20);
      var resp;
      try {
        resp = await fetch(api + "/v1/ask/stream", { method: "POST", headers: headers, body: JSON.stringify(body) });
      } catch (e) { return fail(answerNode, "The assistant is not reachable."); }
      if (!resp.ok) {
        var detail = "HTTP " + resp.status;
        try { var j = await resp.json(); if (typeof j.detail === "string") detail = j.detail; } catch (e) { /* keep */ }
        return fail(answerNode, "Sorry: " + detail);
      }
      var reader = resp.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "", text = "", done = false;
      while (!done) {
        var chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        var parsed = parseEvents(buffer);
        buffer = parsed[1];
        parsed[0].forEach(function (ev) {
          var data;
          try { data = JSON.parse(ev.data); } catch (e) { return; }
          if (ev.event === "token") { text += data.text || ""; answerNode.textContent = text; }
          else if (ev.event === "final") { finish(answerNode, data); done = true; }
          else if (ev.event === "error") { fail(answerNode, "Sorry, something went wrong."); done = true; }
        });
        log.scrollTop = log.scrollHeight;
      }
      if (!done) fail(answerNode, "The answer was cut off.");
    }

    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var question = input.value.trim();
      if (!question || button.disabled) return;
      input.value = "";
      button.disabled = true;
      ask(question).finally(function () { button.disabled = false; input.focus(); });
    });
    return { ask: ask };
  }

  function mountAll() {
    var hosts = document.querySelectorAll("[data-resultsqa]");
    for (var i = 0; i < hosts.length; i++) {
      if (!hosts[i].__resultsqa) hosts[i].__resultsqa = mount(hosts[i]);
    }
  }

  window.ResultsQA = { mount: mount, parseEvents: parseEvents };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();

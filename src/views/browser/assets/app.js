// fbc-registry's catalog browser. No framework, no third-party code, nothing
// fetched from another host: search-as-you-type on the package list, and the
// "what next?" form, answered by /catalogs/NAME/api/v1/successors. Text from the
// catalog is only ever written with textContent, never parsed as HTML.
'use strict';
(function () {
  const body = document.body;
  const catalog = body.dataset.catalog || '';

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The search page: the same rule as the server's (every term in the card's text).
  // Over the server's card limit the list is partial: searches go to the server.
  const query = document.getElementById('q');
  const list = document.getElementById('packages');
  if (query && list && !list.dataset.partial) {
    const cards = Array.from(document.querySelectorAll('#packages > li'));
    const count = document.getElementById('count');
    const none = document.getElementById('none');
    const total = cards.length;
    const noun = total === 1 ? 'package' : 'packages';
    const filter = function () {
      const terms = query.value.toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      for (const card of cards) {
        const text = card.dataset.search || '';
        const hit = terms.every(function (t) { return text.includes(t); });
        card.hidden = !hit;
        if (hit) shown += 1;
      }
      count.textContent = shown === total ? total + ' ' + noun : shown + ' of ' + total + ' ' + noun;
      none.hidden = shown !== 0;
      const url = new URL(window.location.href);
      if (query.value) url.searchParams.set('q', query.value); else url.searchParams.delete('q');
      window.history.replaceState(null, '', url);
    };
    query.addEventListener('input', filter);
    query.form.addEventListener('submit', function (event) { event.preventDefault(); filter(); });
  }

  // The package page: OLM v1's successors of an installed version.
  const form = document.getElementById('successors');
  const answer = document.getElementById('answer');
  function edgeText(edge) {
    let text = edge.kind;
    if (edge.skipRange) text += ' ' + edge.skipRange;
    if (edge.channel) text += ' in ' + edge.channel;
    return text;
  }
  // The bundles the page knows with this version (none for a version it does not list).
  function bundlesOf(version) {
    for (const option of document.querySelectorAll('#versions option')) {
      if (option.value !== version) continue;
      try { return JSON.parse(option.dataset.bundles || '[]'); } catch (error) { return []; }
    }
    return [];
  }
  function show(reply) {
    const parts = [];
    if (reply.selected) {
      const p = el('p', 'selected');
      p.append('Selected: ', el('strong', '', reply.selected));
      parts.push(p);
    } else {
      parts.push(el('p', 'error', 'No successor: ' + (reply.message || 'none')));
    }
    for (const warning of reply.warnings || []) parts.push(el('p', 'warning', warning));
    if ((reply.candidates || []).length) {
      const list = el('ol', 'candidates');
      for (const c of reply.candidates) {
        const item = el('li');
        item.append(el('strong', '', c.version), ' ', el('span', 'muted', c.name));
        const how = (c.edges || []).map(edgeText).join(', ');
        if (how) item.append(' — ' + how);
        if (c.deprecated) item.append(' ', el('span', 'tag deprecated', 'deprecated'));
        list.append(item);
      }
      parts.push(list);
    }
    if ((reply.rejected || []).length) {
      const details = el('details');
      details.append(el('summary', '', reply.rejected.length + ' other bundles, and why not'));
      const list = el('ul', 'rejected');
      for (const r of reply.rejected) {
        const item = el('li');
        item.append(el('strong', '', r.version), ' ' + r.reason);
        list.append(item);
      }
      details.append(list);
      parts.push(details);
    }
    return parts;
  }
  // One question: the successors of `bundle` (or of the version alone, when the
  // page knows no bundle with it), as the answer's parts.
  async function ask(version, bundle) {
    const params = new URLSearchParams({ package: form.dataset.package, version: version, explain: 'true' });
    if (bundle) params.append('installed', bundle);
    if (form.elements.channel.value) params.append('channel', form.elements.channel.value);
    const response = await fetch('/catalogs/' + encodeURIComponent(catalog) + '/api/v1/successors?' + params);
    const text = await response.text();
    if (!response.ok) return [el('p', 'error', text.trim())];
    return show(JSON.parse(text));
  }
  if (form && answer) {
    form.addEventListener('submit', async function (event) {
      event.preventDefault();
      const version = form.elements.version.value.trim();
      const bundles = bundlesOf(version);
      answer.replaceChildren(el('p', 'muted', 'Asking…'));
      try {
        if (bundles.length <= 1) {
          answer.replaceChildren(...await ask(version, bundles[0]));
          return;
        }
        // Several bundles share the version (releases): one answer for each.
        const parts = [el('p', 'muted', bundles.length + ' bundles have version ' + version + '; an answer for each.')];
        for (const bundle of bundles) {
          const section = el('section', 'for-bundle');
          section.dataset.bundle = bundle;
          section.append(el('h3', '', 'Installed: ' + bundle), ...await ask(version, bundle));
          parts.push(section);
        }
        answer.replaceChildren(...parts);
      } catch (error) {
        answer.replaceChildren(el('p', 'error', String(error)));
      }
    });
  }

  body.dataset.ready = 'true';
})();

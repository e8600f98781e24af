// The reviewer's page: reads the share token from the URL's fragment, shows
// the frames large, and records keep/pass, a note and drawings per frame.
// Plain JavaScript, no framework, nothing loaded from another origin.
(function () {
  'use strict';

  var MAX_STROKES = 3, MAX_POINTS = 120, MAX_NOTE = 600;
  var $ = function (id) { return document.getElementById(id); };

  var token = decodeURIComponent((location.hash || '').slice(1));
  var api = '/api/share/' + encodeURIComponent(token);
  var manifest = null;   // the answer of GET /api/share/{token}
  var cur = 0;           // index into manifest.frames
  var tool = 'circle';   // circle or free
  var stroke = null;     // the stroke being drawn
  var noteTimer = null;  // a pending note save
  var noteFrame = -1;    // the frame i the pending note belongs to

  function show(id, on) { $(id).hidden = !on; }

  function say(text, bad) {
    var s = $('status');
    s.textContent = text;
    s.className = 'status' + (bad ? ' bad' : '');
  }

  function gone() {
    show('loading', false);
    show('review', false);
    show('done', false);
    show('gone', true);
    $('finish').disabled = true;
  }

  function frame() { return manifest.frames[cur]; }

  function frameURL(f, thumb) { return api + '/f/' + f.i + (thumb ? '?thumb=1' : ''); }

  // send posts to the API and reads the answer; a 404 means the link
  // closed meanwhile.
  function send(path, body) {
    var opts = { method: 'POST', credentials: 'omit', cache: 'no-store', headers: {} };
    if (body !== undefined) {
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    return fetch(api + path, opts).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (res.status === 404) { gone(); throw new Error('gone'); }
        if (!res.ok) {
          var msg = data.message || 'That did not work; try again.';
          if (res.status === 429) { msg = 'Too many changes at once; wait ' + (res.headers.get('Retry-After') || 'a few') + ' seconds.'; }
          throw new Error(msg);
        }
        return data;
      });
    });
  }

  function mark(f, change) {
    change.i = f.i;
    say('Saving…');
    return send('/mark', change).then(function () {
      say('Saved');
      renderStrip();
      renderProgress();
    }, function (err) {
      if (err.message !== 'gone') { say(err.message, true); }
    });
  }

  // ---- the page ----

  function load() {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) { gone(); return; }
    fetch(api, { credentials: 'omit', cache: 'no-store' }).then(function (res) {
      if (!res.ok) { throw new Error('gone'); }
      return res.json();
    }).then(function (m) {
      manifest = m;
      if (!m.frames.length) { gone(); return; }
      $('house').textContent = m.house;
      var label = m.recipientLabel ? 'For ' + m.recipientLabel + ' · ' : '';
      $('label').textContent = label + 'open until ' + new Date(m.expiresAt).toLocaleDateString();
      if (m.message) { $('message').textContent = m.message; show('message', true); }
      show('loading', false);
      show('review', true);
      renderStrip();
      go(0);
    }).catch(gone);
  }

  function go(n) {
    if (!manifest) { return; }
    flushNote();
    cur = (n + manifest.frames.length) % manifest.frames.length;
    var f = frame();
    var img = $('image');
    img.width = f.w;
    img.height = f.h;
    img.alt = f.name;
    img.src = frameURL(f, false);
    $('counter').textContent = (cur + 1) + ' of ' + manifest.frames.length;
    $('name').textContent = f.name;
    $('note').textContent = f.note || '';
    show('note', !!f.note);
    $('comment').value = f.markNote || '';
    $('download').href = frameURL(f, false) + '?export=1';
    $('download').setAttribute('download', f.name);
    say('');
    renderVerdict();
    renderStrip();
    renderProgress();
    sizeCanvas();
    var next = manifest.frames[(cur + 1) % manifest.frames.length];
    new Image().src = frameURL(next, false);
  }

  function renderVerdict() {
    var f = frame();
    $('keep').setAttribute('aria-pressed', String(f.mark === 'keep'));
    $('pass').setAttribute('aria-pressed', String(f.mark === 'pass'));
    $('strokes').textContent = f.drawings.length + ' of ' + MAX_STROKES;
  }

  function renderProgress() {
    var answered = 0;
    manifest.frames.forEach(function (f) { if (f.mark) { answered++; } });
    $('progress').textContent = answered + ' of ' + manifest.frames.length + ' marked';
    $('finish').disabled = answered === 0;
  }

  function renderStrip() {
    var strip = $('strip');
    if (strip.children.length !== manifest.frames.length) {
      strip.textContent = '';
      manifest.frames.forEach(function (f, n) {
        var b = document.createElement('button');
        b.type = 'button';
        b.className = 'thumb';
        b.title = f.name;
        var t = document.createElement('img');
        t.src = frameURL(f, true);
        t.alt = f.name;
        t.loading = 'lazy';
        var badge = document.createElement('span');
        badge.className = 'badge';
        b.appendChild(t);
        b.appendChild(badge);
        b.addEventListener('click', function () { go(n); });
        strip.appendChild(b);
      });
    }
    manifest.frames.forEach(function (f, n) {
      var b = strip.children[n];
      b.className = 'thumb' + (n === cur ? ' current' : '') + (f.mark ? ' ' + f.mark : '');
      b.setAttribute('aria-current', n === cur ? 'true' : 'false');
      b.lastChild.textContent = f.mark === 'keep' ? 'Keep' : f.mark === 'pass' ? 'Pass' : '';
    });
  }

  function verdict(v) {
    var f = frame();
    f.mark = v;
    renderVerdict();
    mark(f, { verdict: v });
  }

  // ---- the note ----

  function flushNote() {
    if (noteTimer === null) { return; }
    clearTimeout(noteTimer);
    noteTimer = null;
    var f = manifest.frames.filter(function (x) { return x.i === noteFrame; })[0];
    if (f) { mark(f, { note: f.markNote || '' }); }
  }

  $('comment').addEventListener('input', function () {
    var f = frame();
    f.markNote = $('comment').value.slice(0, MAX_NOTE);
    if (noteTimer !== null && noteFrame !== f.i) { flushNote(); }
    noteFrame = f.i;
    clearTimeout(noteTimer);
    noteTimer = setTimeout(flushNote, 700);
    say('Typing…');
  });
  $('comment').addEventListener('blur', flushNote);

  // ---- drawing: pointer events on a canvas over the frame ----

  function sizeCanvas() {
    var img = $('image'), c = $('canvas');
    var r = img.getBoundingClientRect();
    var dpr = window.devicePixelRatio || 1;
    c.width = Math.max(1, Math.round(r.width * dpr));
    c.height = Math.max(1, Math.round(r.height * dpr));
    draw();
  }

  function draw() {
    var c = $('canvas'), ctx = c.getContext('2d');
    ctx.clearRect(0, 0, c.width, c.height);
    if (!manifest) { return; }
    var all = frame().drawings.slice();
    if (stroke) { all.push(stroke); }
    var dpr = window.devicePixelRatio || 1;
    ctx.lineWidth = 3 * dpr;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.strokeStyle = '#ff2d55';
    ctx.shadowColor = 'rgba(0,0,0,0.5)';
    ctx.shadowBlur = 2 * dpr;
    all.forEach(function (d) {
      var p = d.points;
      ctx.beginPath();
      if (d.kind === 'circle' && p.length === 2) {
        var cx = (p[0][0] + p[1][0]) / 2 * c.width, cy = (p[0][1] + p[1][1]) / 2 * c.height;
        var rx = Math.abs(p[1][0] - p[0][0]) / 2 * c.width, ry = Math.abs(p[1][1] - p[0][1]) / 2 * c.height;
        ctx.ellipse(cx, cy, Math.max(rx, 1), Math.max(ry, 1), 0, 0, 2 * Math.PI);
      } else {
        ctx.moveTo(p[0][0] * c.width, p[0][1] * c.height);
        for (var k = 1; k < p.length; k++) { ctx.lineTo(p[k][0] * c.width, p[k][1] * c.height); }
        if (p.length === 1) { ctx.lineTo(p[0][0] * c.width + 0.1, p[0][1] * c.height); }
      }
      ctx.stroke();
    });
  }

  function at(e) {
    var r = $('canvas').getBoundingClientRect();
    var clamp = function (v) { return Math.round(Math.min(1, Math.max(0, v)) * 10000) / 10000; };
    return [clamp((e.clientX - r.left) / r.width), clamp((e.clientY - r.top) / r.height)];
  }

  // thin keeps at most MAX_POINTS points, evenly spread, ends included.
  function thin(points) {
    if (points.length <= MAX_POINTS) { return points; }
    var out = [];
    for (var k = 0; k < MAX_POINTS; k++) {
      out.push(points[Math.round(k * (points.length - 1) / (MAX_POINTS - 1))]);
    }
    return out;
  }

  var canvas = $('canvas');
  canvas.addEventListener('pointerdown', function (e) {
    if (!manifest || e.button > 0) { return; }
    if (frame().drawings.length >= MAX_STROKES) {
      say('At most ' + MAX_STROKES + ' drawings a frame: clear them to draw again.', true);
      return;
    }
    e.preventDefault();
    canvas.setPointerCapture(e.pointerId);
    var p = at(e);
    stroke = { kind: tool, points: tool === 'circle' ? [p, p] : [p] };
    draw();
  });
  canvas.addEventListener('pointermove', function (e) {
    if (!stroke) { return; }
    var p = at(e);
    if (stroke.kind === 'circle') {
      stroke.points[1] = p;
    } else {
      var last = stroke.points[stroke.points.length - 1];
      if (Math.abs(p[0] - last[0]) + Math.abs(p[1] - last[1]) < 0.003) { return; }
      stroke.points.push(p);
    }
    draw();
  });
  function endStroke() {
    if (!stroke) { return; }
    var s = stroke;
    stroke = null;
    var p = s.points;
    var tiny = s.kind === 'circle' && Math.abs(p[1][0] - p[0][0]) < 0.01 && Math.abs(p[1][1] - p[0][1]) < 0.01;
    if (tiny) { draw(); return; }
    s.points = thin(p);
    var f = frame();
    f.drawings.push(s);
    renderVerdict();
    draw();
    mark(f, { drawings: f.drawings });
  }
  canvas.addEventListener('pointerup', endStroke);
  canvas.addEventListener('pointercancel', function () { stroke = null; draw(); });

  function pick(t) {
    tool = t;
    $('tool-circle').setAttribute('aria-pressed', String(t === 'circle'));
    $('tool-free').setAttribute('aria-pressed', String(t === 'free'));
  }

  // ---- controls ----

  $('keep').addEventListener('click', function () { verdict('keep'); });
  $('pass').addEventListener('click', function () { verdict('pass'); });
  $('prev').addEventListener('click', function () { go(cur - 1); });
  $('next').addEventListener('click', function () { go(cur + 1); });
  $('tool-circle').addEventListener('click', function () { pick('circle'); });
  $('tool-free').addEventListener('click', function () { pick('free'); });
  $('clear').addEventListener('click', function () {
    var f = frame();
    if (!f.drawings.length) { return; }
    f.drawings = [];
    renderVerdict();
    draw();
    mark(f, { drawings: [] });
  });
  $('image').addEventListener('load', sizeCanvas);
  window.addEventListener('resize', sizeCanvas);
  window.addEventListener('hashchange', function () { location.reload(); });

  $('finish').addEventListener('click', function () {
    flushNote();
    $('finish').disabled = true;
    send('/finish').then(function (r) {
      $('done-counts').textContent = 'You kept ' + r.kept + ' and passed ' + r.passed + ' of ' + manifest.frames.length + ' frames.';
      show('review', false);
      show('done', true);
      renderProgress();
    }, function (err) {
      renderProgress();
      if (err.message !== 'gone') { say(err.message, true); }
    });
  });
  $('back').addEventListener('click', function () {
    show('done', false);
    show('review', true);
    sizeCanvas();
  });

  document.addEventListener('keydown', function (e) {
    if (!manifest || $('review').hidden || e.altKey || e.ctrlKey || e.metaKey) { return; }
    var tag = (e.target && e.target.tagName) || '';
    if (tag === 'TEXTAREA' || tag === 'INPUT') {
      if (e.key === 'Escape') { e.target.blur(); }
      return;
    }
    switch (e.key) {
      case 'ArrowLeft': go(cur - 1); break;
      case 'ArrowRight': go(cur + 1); break;
      case 'k': case 'K': verdict('keep'); break;
      case 'p': case 'P': verdict('pass'); break;
      default: return;
    }
    e.preventDefault();
  });

  load();
})();

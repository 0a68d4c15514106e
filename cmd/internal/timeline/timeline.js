// The timeline page's drawing code: vcjobTimeline.mount(element, data)
// draws data (timeline.Data as JSON) into element. Only the lanes and
// steps in view are drawn, so the cost of a frame does not grow with the
// number of pods.
var vcjobTimeline = (function () {
  'use strict';
  var t0 = performance.now(), mounted = false;
  var POD = { Pending: '#f2c94c', Running: '#27ae60', Succeeded: '#2f80ed', Failed: '#eb5757', Unknown: '#9b51e0', Terminating: '#bdbdbd' };
  var JOB = { Pending: '#f2c94c', Running: '#27ae60', Restarting: '#f2994a', Completing: '#8fc3f7', Completed: '#2f80ed',
    Aborting: '#c9a27e', Aborted: '#8d6e63', Terminating: '#cfcfcf', Terminated: '#9e9e9e', Failed: '#eb5757' };
  var PG = { Pending: '#f2c94c', Inqueue: '#56ccf2', Running: '#27ae60', Unknown: '#9b51e0', Completed: '#2f80ed', '(no phase)': '#e0e0e0' };
  var MARK = { request: '#616161', decision: '#c62828', registered: '#ef6c00', fired: '#e65100', cancelled: '#9e9e9e' };
  var MARK_TEXT = { request: 'request (SyncJob, no phase change)', decision: 'decision (another action, or a phase change)',
    registered: 'delayed action registered', fired: 'delayed action fired', cancelled: 'delayed action cancelled' };
  var LABEL_W = 190, LANE_H = 14;
  var ROWS = [{ key: 'cmd', name: 'commands', h: 32 }, { key: 'job', name: 'job phase', h: 22 },
    { key: 'pg', name: 'PodGroup', h: 16 }, { key: 'req', name: 'job requests', h: 16 }];
  var HEAD_H = 0;
  ROWS.forEach(function (r) { r.y = HEAD_H; HEAD_H += r.h; });
  HEAD_H += 4;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function legend(title, colors, shape) {
    var box = el('div', 'tl-legend');
    box.appendChild(el('b', '', title));
    Object.keys(colors).forEach(function (k) {
      var s = el('span');
      var i = el('i');
      i.style.background = colors[k];
      if (shape) i.style.borderRadius = '6px';
      s.appendChild(i);
      s.appendChild(document.createTextNode(shape ? MARK_TEXT[k] : k));
      box.appendChild(s);
    });
    return box;
  }

  // first index in arr (sorted by .s) whose step is >= s
  function lowerBound(arr, s) {
    var lo = 0, hi = arr.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (arr[m].s < s) lo = m + 1; else hi = m; }
    return lo;
  }

  function mount(root, data) {
    var tParse = performance.now();
    root.innerHTML = '';
    var steps = Math.max(1, data.steps);
    var lanes = data.lanes || [];
    var markers = data.markers || [];
    var byLane = { '-1': [] };
    lanes.forEach(function (_, i) { byLane[i] = []; });
    markers.forEach(function (m) { (byLane[m.l] || byLane['-1']).push(m); });

    var head = el('div', 'tl-head');
    head.appendChild(el('h1', '', 'Job ' + data.job + ': ' + lanes.length + ' pod lanes over ' + steps + ' steps'));
    head.appendChild(legend('job:', JOB));
    head.appendChild(legend('pod:', POD));
    head.appendChild(legend('PodGroup:', PG));
    head.appendChild(legend('markers:', MARK, true));
    var tools = el('div', 'tl-tools');
    var zoomIn = el('button', '', 'zoom in'), zoomOut = el('button', '', 'zoom out'), fit = el('button', '', 'fit');
    var stat = el('span', 'tl-stat');
    [zoomIn, zoomOut, fit, stat].forEach(function (b) { tools.appendChild(b); });
    head.appendChild(tools);
    if (data.failure) head.appendChild(el('div', 'tl-failure', 'The run stopped: ' + data.failure));
    if (data.summary) head.appendChild(el('div', 'tl-summary', 'At the end: ' + data.summary));
    root.appendChild(head);

    var body = el('div', 'tl-body');
    var scroll = el('div', 'tl-scroll');
    var canvas = el('canvas', 'tl-canvas');
    var spacer = el('div', 'tl-spacer');
    var details = el('div', 'tl-details', 'Hover over the picture for details; click a marker to keep them here.');
    scroll.appendChild(canvas);
    scroll.appendChild(spacer);
    body.appendChild(scroll);
    body.appendChild(details);
    root.appendChild(body);
    var tip = document.querySelector('body > .tl-tip');
    if (!tip) { tip = el('div', 'tl-tip'); document.body.appendChild(tip); }

    var ctx = canvas.getContext('2d');
    var W = 0, H = 0, ppx = 1, pending = false;

    function X(s) { return LABEL_W + s * ppx - scroll.scrollLeft; }
    function laneY(l) { return HEAD_H + l * LANE_H - scroll.scrollTop; }
    function stepAt(x) { return Math.floor((x - LABEL_W + scroll.scrollLeft) / ppx); }
    function timeOf(s) { var ms = data.stepTime[Math.max(0, Math.min(s, data.stepTime.length - 1))] || 0; return '+' + fmtDur(ms); }
    function fmtDur(ms) {
      if (ms === 0) return '0s';
      var s = ms / 1000, out = '';
      var h = Math.floor(s / 3600); s -= h * 3600;
      var m = Math.floor(s / 60); s -= m * 60;
      if (h) out += h + 'h';
      if (h || m) out += m + 'm';
      return out + (Math.round(s * 1000) / 1000) + 's';
    }

    function resize() {
      var dpr = window.devicePixelRatio || 1;
      W = scroll.clientWidth; H = scroll.clientHeight;
      canvas.width = Math.max(1, Math.floor(W * dpr)); canvas.height = Math.max(1, Math.floor(H * dpr));
      canvas.style.width = W + 'px'; canvas.style.height = H + 'px';
      // The canvas stays in view; the spacer gives the scroll range.
      canvas.style.marginBottom = -H + 'px';
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    }
    function setZoom(v, anchorX) {
      var ax = anchorX === undefined ? (LABEL_W + W) / 2 : anchorX;
      var s = (ax - LABEL_W + scroll.scrollLeft) / ppx;
      ppx = Math.max(0.01, Math.min(64, v));
      spacer.style.width = (LABEL_W + steps * ppx + 20) + 'px';
      spacer.style.height = (HEAD_H + lanes.length * LANE_H + 20) + 'px';
      scroll.scrollLeft = Math.max(0, s * ppx - (ax - LABEL_W));
      redraw();
    }
    function fitZoom() { setZoom((W - LABEL_W - 24) / steps); }

    function band(changes, colors, row) {
      for (var i = 0; i < changes.length; i++) {
        var c = changes[i];
        var to = i + 1 < changes.length ? changes[i + 1].step : steps;
        var x0 = Math.max(LABEL_W, X(c.step)), x1 = Math.min(W, X(to));
        if (x1 <= x0 || !c.phase) continue;
        ctx.fillStyle = colors[c.phase] || '#ccc';
        ctx.fillRect(x0, row.y + 2, Math.max(1, x1 - x0), row.h - 4);
        if (x1 - x0 > ctx.measureText(c.phase).width + 8) {
          ctx.fillStyle = '#000';
          ctx.fillText(c.phase, x0 + 4, row.y + row.h / 2 + 4);
        }
      }
    }

    function mark(m, y, h) {
      var x = X(m.s + 0.5), c = MARK[m.k] || '#000';
      ctx.fillStyle = c; ctx.strokeStyle = c;
      var r = Math.min(5, h / 2 - 1);
      switch (m.k) {
        case 'request':
          ctx.fillRect(x - 0.5, y + 2, 1.5, h - 4); break;
        case 'decision':
          ctx.beginPath(); ctx.moveTo(x - r, y + 1); ctx.lineTo(x + r, y + 1); ctx.lineTo(x, y + h - 1); ctx.closePath(); ctx.fill(); break;
        default:
          ctx.beginPath(); ctx.moveTo(x, y + h / 2 - r); ctx.lineTo(x + r, y + h / 2); ctx.lineTo(x, y + h / 2 + r); ctx.lineTo(x - r, y + h / 2); ctx.closePath();
          ctx.lineWidth = 1.5;
          if (m.k === 'fired') ctx.fill(); else ctx.stroke();
          if (m.k === 'cancelled') { ctx.beginPath(); ctx.moveTo(x - r, y + h / 2 - r); ctx.lineTo(x + r, y + h / 2 + r); ctx.stroke(); }
      }
    }

    function drawMarkers(list, y, h, s0, s1) {
      for (var i = lowerBound(list, s0); i < list.length && list[i].s <= s1; i++) mark(list[i], y, h);
    }

    function draw() {
      pending = false;
      ctx.font = '11px system-ui, sans-serif';
      ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
      var s0 = Math.max(0, stepAt(LABEL_W) - 1), s1 = stepAt(W) + 1;
      var first = Math.max(0, Math.floor(scroll.scrollTop / LANE_H));
      var last = Math.min(lanes.length - 1, Math.ceil((scroll.scrollTop + H - HEAD_H) / LANE_H));
      // Pod lanes in view.
      for (var l = first; l <= last; l++) {
        var y = laneY(l);
        if (l % 2) { ctx.fillStyle = '#f7f7f7'; ctx.fillRect(LABEL_W, y, W - LABEL_W, LANE_H); }
        var sg = lanes[l].segs;
        for (var k = 0; k < sg.length; k += 4) {
          var to = sg[k + 1] < 0 ? steps : sg[k + 1];
          var x0 = X(sg[k]), x1 = X(to);
          if (x1 < LABEL_W || x0 > W) continue;
          ctx.fillStyle = POD[data.phases[sg[k + 2]]] || '#ccc';
          var a = Math.max(LABEL_W, x0);
          ctx.fillRect(a, y + 2, Math.max(1, Math.min(W, x1) - a), LANE_H - 4);
          if (sg[k + 3] && sg[k] > 0 && x0 >= LABEL_W) { ctx.fillStyle = '#000'; ctx.fillRect(x0, y, 2, LANE_H); }
        }
        drawMarkers(byLane[l], y, LANE_H, s0, s1);
      }
      // Command lines across the lanes.
      ctx.strokeStyle = '#0002'; ctx.lineWidth = 1;
      data.commands.forEach(function (c) {
        var x = Math.round(X(c.step)) + 0.5;
        if (x < LABEL_W || x > W) return;
        ctx.beginPath(); ctx.moveTo(x, HEAD_H); ctx.lineTo(x, H); ctx.stroke();
      });
      // The fixed rows on top.
      ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, HEAD_H);
      // Labels on two lines, each where it fits; hovering names the rest.
      var ends = [-1, -1];
      data.commands.forEach(function (c) {
        var x = X(c.step);
        if (x < LABEL_W - 1 || x > W) return;
        ctx.fillStyle = '#333'; ctx.fillRect(x, ROWS[0].y + 22, 1, 10);
        var label = c.text + ' ' + c.time;
        for (var i = 0; i < 2; i++) {
          if (x > ends[i]) { ctx.fillText(label, x + 2, ROWS[0].y + 10 + 10 * i); ends[i] = x + ctx.measureText(label).width + 6; break; }
        }
      });
      band(data.jobPhase || [], JOB, ROWS[1]);
      band(data.podGroup || [], PG, ROWS[2]);
      drawMarkers(byLane['-1'], ROWS[3].y, ROWS[3].h, s0, s1);
      ctx.fillStyle = '#999'; ctx.fillRect(0, HEAD_H - 2, W, 1);
      // Labels on the left.
      ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, LABEL_W, H);
      ctx.fillStyle = '#222';
      ROWS.forEach(function (r) { ctx.font = 'bold 11px system-ui, sans-serif'; ctx.fillText(r.name, 6, r.y + r.h / 2 + 4); });
      ctx.font = '11px system-ui, sans-serif';
      for (l = first; l <= last; l++) {
        var ly = laneY(l);
        if (ly < HEAD_H - 2) continue;
        ctx.fillText(lanes[l].name, 6, ly + LANE_H - 3, LABEL_W - 10);
      }
      ctx.fillStyle = '#999'; ctx.fillRect(LABEL_W - 1, 0, 1, H);
    }
    function redraw() { if (!pending) { pending = true; requestAnimationFrame(draw); } }

    // What is under a point of the canvas: a marker, a segment or a band.
    function hit(mx, my) {
      var s = stepAt(mx);
      if (mx < LABEL_W || s < 0 || s >= steps) return null;
      function near(list) {
        var best = null, bd = 6;
        for (var i = lowerBound(list, stepAt(mx - 6) - 1); i < list.length && list[i].s <= stepAt(mx + 6) + 1; i++) {
          var d = Math.abs(X(list[i].s + 0.5) - mx);
          if (d <= bd) { bd = d; best = list[i]; }
        }
        return best && { marker: best };
      }
      function phaseAt(changes) {
        var p = '';
        for (var i = 0; i < changes.length && changes[i].step <= s; i++) p = changes[i].phase;
        return p || '(none)';
      }
      if (my < HEAD_H) {
        if (my < ROWS[1].y) {
          var c = null;
          data.commands.forEach(function (cm) { if (cm.step <= s) c = cm; });
          return c && { text: 'line ' + c.line + ': ' + c.text + '  [' + c.time + ']' + (c.events ? '\n' + c.events.join('\n') : '') };
        }
        if (my < ROWS[2].y) return { text: 'job phase at step ' + s + ' (' + timeOf(s) + '): ' + phaseAt(data.jobPhase || []) };
        if (my < ROWS[3].y) return { text: 'PodGroup at step ' + s + ': ' + phaseAt(data.podGroup || []) };
        return near(byLane['-1']);
      }
      var l = Math.floor((my - HEAD_H + scroll.scrollTop) / LANE_H);
      if (l < 0 || l >= lanes.length) return null;
      var m = near(byLane[l]);
      if (m) return m;
      var sg = lanes[l].segs;
      for (var k = 0; k < sg.length; k += 4) {
        var to = sg[k + 1] < 0 ? steps : sg[k + 1];
        if (sg[k] <= s && s < Math.max(to, sg[k] + 1)) {
          return { text: lanes[l].name + ' (task ' + lanes[l].task + '): ' + data.phases[sg[k + 2]] + ' from step ' + sg[k] + (sg[k + 1] < 0 ? ' to the end' : ' to step ' + to) + (sg[k + 3] ? ', a newly created pod' : '') };
        }
      }
      return { text: lanes[l].name + ': no pod at step ' + s };
    }
    function describe(h) {
      if (!h) return '';
      if (h.text) return h.text;
      var m = h.marker;
      return m.t + '\nstep ' + m.s + ' (' + timeOf(m.s) + '), ' + (MARK_TEXT[m.k] || m.k) + '\n\n' + m.d;
    }
    canvas.addEventListener('mousemove', function (e) {
      var r = canvas.getBoundingClientRect();
      var h = hit(e.clientX - r.left, e.clientY - r.top);
      if (!h) { tip.style.display = 'none'; return; }
      tip.textContent = describe(h);
      tip.style.display = 'block';
      tip.style.left = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 4) + 'px';
      tip.style.top = Math.min(e.clientY + 14, window.innerHeight - tip.offsetHeight - 4) + 'px';
    });
    canvas.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
    canvas.addEventListener('click', function (e) {
      var r = canvas.getBoundingClientRect();
      var h = hit(e.clientX - r.left, e.clientY - r.top);
      if (h) { details.textContent = describe(h); details.dataset.kind = h.marker ? h.marker.k : 'text'; }
    });
    canvas.addEventListener('wheel', function (e) {
      if (!e.ctrlKey) return;
      e.preventDefault();
      var r = canvas.getBoundingClientRect();
      setZoom(ppx * (e.deltaY < 0 ? 1.25 : 0.8), e.clientX - r.left);
    }, { passive: false });
    zoomIn.onclick = function () { setZoom(ppx * 2); };
    zoomOut.onclick = function () { setZoom(ppx / 2); };
    fit.onclick = fitZoom;
    scroll.addEventListener('scroll', redraw);
    window.addEventListener('resize', function () { resize(); redraw(); });

    resize();
    fitZoom();
    draw();
    var drawn = performance.now();
    // The first picture of a page counts from the script's start (parsing
    // the data included); a page that mounts again counts from the mount.
    var since = mounted ? tParse : t0;
    mounted = true;
    root.dataset.renderMs = (drawn - since).toFixed(1);
    root.dataset.drawnAt = drawn.toFixed(1); // since the navigation began
    root.dataset.lanes = lanes.length;
    stat.textContent = lanes.length + ' pods, ' + markers.length + ' markers; drawn in ' + (drawn - since).toFixed(0) + ' ms (the first frame ' + (drawn - tParse).toFixed(0) + ' ms)';

    // For tests and embedding pages: where things are, and what colour is
    // drawn there.
    var api = {
      data: data,
      redraw: function () { draw(); },
      rowY: function (key) { var r = ROWS.filter(function (x) { return x.key === key; })[0]; return r.y + r.h / 2; },
      stepX: function (s) { return X(s + 0.5); },
      showLane: function (l) { scroll.scrollTop = Math.max(0, l * LANE_H - 2 * LANE_H); draw(); return laneY(l) + LANE_H / 2; },
      pixel: function (x, y) {
        var dpr = window.devicePixelRatio || 1;
        var p = ctx.getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1).data;
        return '#' + [p[0], p[1], p[2]].map(function (v) { return ('0' + v.toString(16)).slice(-2); }).join('');
      },
      colors: { pod: POD, job: JOB, podGroup: PG, marker: MARK },
      hit: function (x, y) { return describe(hit(x, y)); },
      canvas: canvas
    };
    root.timeline = api;
    return api;
  }

  return { mount: mount };
})();

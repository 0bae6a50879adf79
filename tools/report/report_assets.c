/* The report page's inline style sheet and script (see report.h): the
 * page needs nothing from the network.
 *
 * The script makes the tables sortable, filters the path table, lights a
 * tree edge when its table row is pointed at, and checks the page's
 * numbers against each other: every edge of a table is in its picture
 * with the same count, the last arrivals of each waiting node add up to
 * its waves, and those to the summary.  Only when it ran to its end it
 * adds an element #report-ready; an error (its own check, or any other)
 * adds #report-error with the message, so a headless browser's dump of
 * the page tells whether the script ran cleanly. */
#include "report.h"

const char report_css[] =
"body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}"
"header{background:#23395d;color:#fff;padding:10px 20px}"
"header h1{margin:0;font-size:22px}header a{color:#cde;margin-right:12px}"
"main{padding:0 20px 40px}section{margin-top:24px}"
"h2{border-bottom:2px solid #23395d;padding-bottom:2px}"
"table{border-collapse:collapse;margin:8px 0;background:#fff}"
"td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
"th{background:#e8edf4;cursor:pointer}td.num{text-align:right;"
"font-variant-numeric:tabular-nums}td.warn{color:#b00;font-weight:bold}"
"tr.hot td,span.hot{background:#fdd}tr.cold td{background:#def}"
".scroll{overflow-x:auto;max-width:100%}.none{color:#777}"
"svg text{font-size:11px;fill:#222}svg .lbl{text-anchor:end}"
"svg .axis{font-size:10px;fill:#555;text-anchor:middle}"
".tree .node rect{fill:#fff;stroke:#23395d}"
".tree .node.missing rect{stroke-dasharray:3,2;fill:#eee}"
".tree .node.root rect{fill:#e8edf4}"
".tree text{text-anchor:middle}.tree .edge-count{text-anchor:start;"
"font-weight:bold;fill:#700}.bal-edge.lit line{stroke:#f0a000!important}"
".bars rect{fill:#6a8cc7}.bars .hot rect{fill:#d33}.bars .cold rect"
"{fill:#6c6}.bars .sd{stroke:#222}.bars .gmean{stroke:#000;"
"stroke-dasharray:4,3}"
".timeline .bg{fill:#f2f2f2}.timeline .call,.k-call{fill:#23395d;"
"background:#23395d;color:#fff}.timeline .filter,.k-filter{fill:#e69500;"
"background:#e69500}.timeline .link,.k-link{fill:#5aa9e6;"
"background:#5aa9e6}"
".orders .panel{fill:#fff;stroke:#bbb}.orders line{stroke:#999;"
"stroke-width:2}.orders circle{fill:#2a6fd6}.orders .last circle"
"{fill:#d33}.orders .member rect{fill:#222}.orders .ptitle{font-weight:"
"bold}"
".clock .slack{fill:#5b5}.clock .viol{fill:#d33}.clock .zero{stroke:#000}"
"#report-ready{display:none}#report-error{background:#d33;color:#fff;"
"padding:8px}";

const char report_js[] =
"(function(){'use strict';\n"
"function mark(id,text){var d=document.createElement('div');d.id=id;"
"d.textContent=text;document.body.appendChild(d);return d;}\n"
"window.addEventListener('error',function(ev){if(!document."
"getElementById('report-error'))mark('report-error','script error: '+"
"ev.message);});\n"
"function fail(m){throw new Error(m);}\n"
"function all(sel){return Array.prototype.slice.call(document."
"querySelectorAll(sel));}\n"
"function run(){\n"
/* sortable tables */
"all('table.sortable').forEach(function(t){var body=t.tBodies[0];"
"Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,col){"
"th.addEventListener('click',function(){var dir=th.getAttribute('data-dir')"
"==='asc'?-1:1;th.setAttribute('data-dir',dir>0?'asc':'desc');"
"var rows=Array.prototype.slice.call(body.rows);rows.sort(function(a,b){"
"var x=a.cells[col].textContent,y=b.cells[col].textContent,nx=parseFloat(x),"
"ny=parseFloat(y);if(!isNaN(nx)&&!isNaN(ny))return dir*(nx-ny);"
"return dir*x.localeCompare(y);});rows.forEach(function(r){"
"body.appendChild(r);});});});});\n"
/* the path filter */
"var filt=document.getElementById('path-filter');if(filt)filt."
"addEventListener('input',function(){var q=filt.value.toLowerCase();"
"all('tr.path-row').forEach(function(r){r.style.display=r.textContent."
"toLowerCase().indexOf(q)>=0?'':'none';});});\n"
/* every balance row has its edge in the picture, with the same count */
"function key(e){return [e.getAttribute('data-scope'),e.getAttribute("
"'data-parent'),e.getAttribute('data-child')].join('\\u0001');}\n"
"var edges={};all('g.bal-edge').forEach(function(g){edges[key(g)]=g;});\n"
"var sums={},waves={};\n"
"all('tr.bal-row').forEach(function(r){var g=edges[key(r)];if(!g)"
"fail('no edge in the picture for '+key(r));if(g.getAttribute('data-last')"
"!==r.getAttribute('data-last'))fail('picture and table differ for '+"
"key(r));r.addEventListener('mouseenter',function(){g.classList.add('lit');"
"});r.addEventListener('mouseleave',function(){g.classList.remove('lit');"
"});var k=r.getAttribute('data-scope')+'\\u0001'+r.getAttribute("
"'data-parent');sums[k]=(sums[k]||0)+Number(r.getAttribute('data-last'));"
"waves[k]=Number(r.getAttribute('data-waves'));});\n"
/* the last arrivals of a node add up to its waves, and all to the total */
"var total=0,nodes=0;Object.keys(sums).forEach(function(k){if(sums[k]!=="
"waves[k])fail('the last arrivals at '+k+' add up to '+sums[k]+', not '+"
"waves[k]);total+=waves[k];nodes++;});\n"
"var sw=document.getElementById('sum-waves');if(!sw||Number(sw.getAttribute("
"'data-value'))!==total)fail('summary waves '+(sw&&sw.getAttribute("
"'data-value'))+' but the tables count '+total);\n"
"var paths=all('tr.path-row'),hot=all('tr.path-row.hot,tr.path-row.cold');\n"
"var sh=document.getElementById('sum-hotspots');if(Number(sh.getAttribute("
"'data-value'))!==hot.length)fail('summary hotspots differ from the table');"
"\n"
"var ok=mark('report-ready','report checked');ok.setAttribute("
"'data-nodes',nodes);ok.setAttribute('data-waves',total);ok.setAttribute("
"'data-edges',Object.keys(edges).length);ok.setAttribute('data-paths',"
"paths.length);ok.setAttribute('data-hotspots',hot.length);ok.setAttribute("
"'data-timelines',all('g.tl-row').length);ok.setAttribute('data-instances',"
"all('g.instance').length);}\n"
"try{run();}catch(e){mark('report-error','report check failed: '+e.message);"
"throw e;}\n"
"})();\n";

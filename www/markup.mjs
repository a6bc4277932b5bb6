// The inspector's markup, one copy for the page (www/index.html) and the package's
// <contextview-inspector> element: every id is looked up inside its own root.

export const MARKUP = `<div class="cv-inspector">
  <header>
    <h1>contextview <small>inspector</small></h1>
    <p class="lede">What exactly did the model get, what did it cost, what was cached, where did the window go — all in this page, nothing leaves it.</p>
    <p id="status" role="status" aria-live="polite">loading…</p>
    <p id="alert" role="alert" hidden></p>
  </header>

  <div id="drop" class="inputs" tabindex="-1">
    <fieldset>
      <legend>Session</legend>
      <label class="file" title="our log, or a Claude Code, Codex, pi, Gemini CLI, Copilot CLI, Roo Code, Kilo Code or OpenCode session with its subagents' files, or an Aider chat history or a Cline task, in any order; or drop them on the page">Open files… <input type="file" id="session-input" multiple accept=".jsonl,.json,.md,.txt,application/x-ndjson"></label>
      <label class="file" title="a Claude Code project or session folder: the session and the agent files under its subagents/">Open a session folder… <input type="file" id="session-folder-input" webkitdirectory multiple></label>
      <button type="button" id="follow-open" hidden title="a session file its agent is writing: read again as it grows (Chromium's File System Access API)">Follow a file…</button>
      <button type="button" id="follow-stop" hidden>Stop following</button>
      <button type="button" id="example">Example</button>
      <span id="format-box" hidden><label>read it as <select id="format"><option value="claude-code">Claude Code</option><option value="codex">Codex</option><option value="pi">pi</option><option value="gemini-cli">Gemini CLI</option><option value="copilot-cli">Copilot CLI</option><option value="aider">Aider</option><option value="cline">Cline</option><option value="roo-code">Roo Code</option><option value="kilo-code">Kilo Code</option><option value="opencode">OpenCode</option></select></label> <button type="button" id="format-load">Load</button></span>
      <label class="file" id="answer-label" title="a provider's answer (JSON or a stream), recorded after the session">Add its answer… <input type="file" id="answer-input" accept=".json,.sse,.txt,.jsonl,text/event-stream,application/json" disabled></label>
    </fieldset>
    <fieldset>
      <legend>Workspace</legend>
      <button type="button" id="folder-open" hidden>Open folder…</button>
      <label class="file" title="a repository: its rules and skills, and the prompt heads they make">Pick a folder… <input type="file" id="folder-input" webkitdirectory multiple></label>
    </fieldset>
    <fieldset id="whatif">
      <legend>View</legend>
      <label title="each request at the provider and model the session recorded, without pruning of ours"><input type="checkbox" id="as-recorded" disabled> as recorded</label>
      <label>provider
        <select id="provider">
          <option value="anthropic">anthropic</option>
          <option value="openai-chat">openai-chat</option>
          <option value="openai-responses">openai-responses</option>
          <option value="gemini">gemini</option>
        </select>
      </label>
      <label>model <input id="model" placeholder="the session's" size="18"></label>
      <label>window <input id="window" type="number" min="1000" step="1000" value="200000" size="8"></label>
      <label>pruning
        <select id="pruning"><!-- the package's policies known by name, filled by inspector.mjs --></select>
      </label>
      <label title="for sessions that recorded no prompt heads of their own"><input type="checkbox" id="use-heads" disabled> workspace prompt</label>
    </fieldset>
  </div>

  <section id="overview" aria-labelledby="t-h">
    <nav id="crumbs" aria-label="sessions opened" hidden></nav>
    <h2 id="t-h">Timeline <span id="mode-label" class="badge" hidden></span></h2>
    <p id="session-summary" class="muted">No session loaded.</p>
    <p id="session-cost" class="totals"></p>
    <div id="timeline-legend" class="legend"></div>
    <div class="chart-box"><canvas id="timeline-chart" height="160"></canvas><div id="chart-readout" class="readout" hidden></div></div>
    <label class="slider">request <input type="range" id="slider" min="0" max="0" value="0" disabled>
      <output id="slider-out">–</output></label>
  </section>

  <main>
    <section id="request-panel" aria-labelledby="r-h">
      <h2 id="r-h">The request <span id="request-title" class="muted"></span></h2>
      <p id="recorded-note" class="note" hidden></p>
      <div id="figures" class="figures"></div>
      <p id="against-recorded" class="note" hidden></p>
      <div class="pair">
        <div>
          <h3>Tokens by source</h3>
          <div id="by-source" class="bar" role="img" aria-label="tokens by source"></div>
          <table id="sources"><thead><tr><th>source</th><th class="num">tokens</th><th class="num">bytes</th></tr></thead><tbody></tbody></table>
        </div>
        <div>
          <h3>Context window</h3>
          <div id="gauge" class="gauge" role="img" aria-label="context used against the window"></div>
          <p id="gauge-text" class="muted"></p>
          <h3>What the view did</h3>
          <ul id="pipeline" class="plain"></ul>
        </div>
      </div>
      <h3>The token counts</h3>
      <ul id="token-notes" class="plain notes"></ul>
      <h3>Body <span id="body-size" class="muted"></span></h3>
      <div class="row"><button type="button" id="copy-body">Copy body</button><button type="button" id="expand-all">Expand messages</button></div>
      <div id="body" class="json" tabindex="0"></div>
      <h3>Shared with the request before</h3>
      <div id="prefix" class="figures"></div>
      <h3>What changed since request <label class="inline"><input id="compare" type="number" min="1" size="5" placeholder="the one before" aria-label="compare with request number"></label></h3>
      <ul id="diff" class="plain"></ul>
      <h3>Compaction</h3>
      <div class="row wrap"><label>keep the last <input id="keep-recent" type="number" min="0" step="500" size="7" placeholder="default"> tokens verbatim</label>
        <button type="button" id="compact" disabled>Prepare a compaction here</button></div>
      <p id="compaction-summary" class="muted"></p>
      <div id="compaction-body" class="json"></div>
    </section>

    <section id="session-panel" aria-labelledby="s-h">
      <h2 id="s-h">Session</h2>
      <div id="subagents-box" hidden>
        <h3>Subagents (<span id="subagent-count">0</span>)</h3>
        <ul id="subagents" class="plain subagents"></ul>
      </div>
      <dl id="import-report" class="grid"></dl>
      <h3>What the pruning options cost</h3>
      <div class="row wrap"><button type="button" id="price" disabled>Price the pruning options</button> <span id="prices-note" class="muted"></span></div>
      <table id="prices"><thead><tr><th>pruning</th><th class="num">$ (input and output)</th><th class="num">cache reads</th><th class="num">largest</th><th class="num">over the window</th></tr></thead><tbody></tbody></table>
      <details id="session-diagnostics-box"><summary>Diagnostics (<span id="session-diag-count">0</span>)</summary><ul id="session-diagnostics"></ul></details>
    </section>
  </main>

  <details id="workspace-panel" aria-labelledby="ws-h">
    <summary><h2 id="ws-h">Workspace</h2> <span id="ws-summary" class="muted">No folder opened.</span></summary>
    <h3>Rules, in load order</h3>
    <table id="rules"><thead><tr><th>#</th><th>file</th><th>source</th><th>activation</th><th>bytes</th></tr></thead><tbody></tbody></table>
    <h3>Skills</h3>
    <table id="skills"><thead><tr><th>name</th><th>source</th><th>description</th></tr></thead><tbody></tbody></table>
    <h3>Head budget</h3>
    <p class="muted">How the workspace's first-user prefix shares its token budget, section by section, highest priority first. Change the budget or a priority to see what gives way (with “with the workspace's prompt”, every request is rebuilt with it).</p>
    <label>budget <input id="head-budget" type="number" min="0" step="100" size="9" placeholder="¼ of the window"> tokens</label>
    <table id="head-allocation"><thead><tr><th>section</th><th>priority</th><th>need</th><th>granted</th><th>used</th><th>cut</th></tr></thead><tbody></tbody></table>
    <h3>Which rules attach to a file?</h3>
    <form id="path-form"><label>path <input id="path-query" size="34" placeholder="src/app.ts" list="workspace-files"></label> <button>Show</button></form>
    <datalist id="workspace-files"></datalist>
    <ul id="path-rules" class="plain"></ul>
    <details id="ws-diagnostics-box"><summary>Diagnostics (<span id="ws-diag-count">0</span>)</summary><ul id="ws-diagnostics"></ul></details>
  </details>
</div>`;

// Drives Debian's chromium (headless, playwright-core) through the bmam memory inspector.
// Usage: node drive.mjs CONFIG.json   (written by tests/test_ui_e2e.py)
// Prints one JSON line with what it saw; exits 1 with the failing step on stderr.
import { readFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));
const shots = cfg.screenshots;
mkdirSync(shots, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), "bmam-chromium-"));
const STEP_MS = cfg.stepTimeoutMs ?? 30000;

const consoleErrors = [];
const seen = {};
let step = "launch";

function expect(cond, message) {
  if (!cond) throw new Error(message);
}

async function open(context, viewport) {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  page.setDefaultTimeout(STEP_MS);
  page.on("console", (msg) => {
    if (msg.type() === "error") consoleErrors.push(`${viewport.width}px ${step}: ${msg.text()}`);
  });
  page.on("pageerror", (err) => consoleErrors.push(`${viewport.width}px ${step}: uncaught ${err.message}`));
  return page;
}

async function login(page) {
  await page.goto(`${cfg.baseUrl}/ui/`);
  await page.fill("#api-key", cfg.apiKey || "");
  await page.fill("#user-id", cfg.userId);
  await page.click("#load");
  await page.waitForSelector("body[data-ready=true]");
  await page.waitForSelector("#view-memories[data-loaded]");
}

async function tab(page, view) {
  await page.click(`.tabs [data-view=${view}]`);
  await page.waitForSelector(`#view-${view}:not([hidden])`);
}

const card = (id) => `.tiers [data-memory-id="${id}"]`;

async function main() {
  // A fresh profile (--user-data-dir) for every run: nothing carried over from an earlier one.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: cfg.chromium || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
    locale: "zh-CN",
  });
  try {
    // ---- desktop, 1280×800 ----
    const page = await open(context, { width: 1280, height: 800 });
    step = "load";
    await login(page);
    seen.cards = await page.locator(".tiers .card").count();
    seen.coreCards = await page.locator("[data-list=CORE] .card").count();
    seen.hasChinese = (await page.locator(".tiers .card .text[lang=zh-Hans]").count()) > 0;
    if (cfg.conflictWinner) {
      step = "episode";
      const c = card(cfg.conflictWinner);
      await page.locator(`${c} details.more-info > summary`).click();
      await page.locator(`${c} [data-action=turns]`).click();
      await page.waitForSelector(`${c} .turns .this-turn`);
      seen.episodeTurn = await page.textContent(`${c} .turns .this-turn`);
    }
    await page.screenshot({ path: join(shots, "01-memories.png"), fullPage: true });

    step = "lock";
    await page.locator(`${card(cfg.lockId)} [data-action=lock]`).click();
    await page.waitForSelector(`${card(cfg.lockId)} [data-locked=true]`);
    seen.lockedTier = await page.locator(card(cfg.lockId)).evaluate((n) => n.closest(".tier").dataset.tier);
    await page.screenshot({ path: join(shots, "02-memories-locked.png"), fullPage: true });

    step = "react";
    await page.locator(`${card(cfg.reactId)} [data-action=react]`).selectOption("ENGAGED");
    await page.waitForSelector(`[data-list=MID] [data-memory-id="${cfg.reactId}"]`);
    step = "feedback";
    await page.locator(`${card(cfg.feedbackId)} [data-action=feedback]`).selectOption("LIKE");
    await page.waitForFunction(() => /feedback like done/.test(document.querySelector("#status").textContent));
    seen.feedbackStatus = await page.textContent("#status");
    step = "unlock";
    await page.locator(`${card(cfg.unlockId)} [data-action=unlock]`).click();
    await page.waitForSelector(`[data-list=MID] [data-memory-id="${cfg.unlockId}"]`);
    seen.unlockedLocked = await page.locator(`${card(cfg.unlockId)} [data-locked=true]`).count();
    await page.locator(`${card(cfg.unlockId)} [data-action=lock]`).click(); // and lock it again
    await page.waitForSelector(`[data-list=CORE] [data-memory-id="${cfg.unlockId}"] [data-locked=true]`);

    step = "forget";
    await page.locator(`${card(cfg.forgetId)} [data-action=forget]`).click();
    await page.waitForSelector("#confirm[open]");
    seen.confirmText = await page.textContent("#confirm-text");
    await page.screenshot({ path: join(shots, "03-forget-confirm.png") });
    await page.click("#confirm-ok");
    await page.waitForSelector(card(cfg.forgetId), { state: "detached" });

    if (cfg.correctId) {
      step = "correct";
      await page.locator(`${card(cfg.correctId)} [data-action=correct]`).click();
      await page.waitForSelector("#correct[open]");
      seen.correctPrefill = await page.inputValue("#correct-text");
      await page.fill("#correct-text", cfg.correctText);
      await page.click("#correct-ok");
      await page.waitForSelector(card(cfg.correctId), { state: "detached" });
      await page.locator(".tiers .card .text", { hasText: cfg.correctText }).first().waitFor();
      seen.correctedCards = await page.locator(".tiers .card .text", { hasText: cfg.correctText }).count();
    }

    step = "recall";
    await tab(page, "recall");
    await page.fill("#recall-query", cfg.recallQuery);
    await page.click("#recall-form button[type=submit]");
    await page.waitForSelector("#recall-banner:not([hidden])");
    seen.recallBanner = await page.textContent("#recall-banner");
    seen.recallGated = await page.getAttribute("#recall-banner", "data-gated");
    seen.recallTexts = await page.locator("#recall-results .card .text").allTextContents();
    seen.recallWhy = await page.locator("#recall-results .why li").allTextContents();
    await page.screenshot({ path: join(shots, "04-recall.png"), fullPage: true });

    if (cfg.recall) {
      step = "recall gated";
      await page.fill("#recall-query", cfg.gatedQuery);
      await page.click("#recall-form button[type=submit]");
      await page.waitForSelector("#recall-banner[data-gated=true]");
      seen.gatedBanner = await page.textContent("#recall-banner");
      seen.gatedHits = await page.locator("#recall-results .card").count();
      await page.screenshot({ path: join(shots, "05-recall-gated.png"), fullPage: true });
    }

    step = "graph";
    await tab(page, "memories");
    await page.waitForSelector(card(cfg.graphId));
    await page.locator(`${card(cfg.graphId)} [data-action=graph]`).click();
    await page.waitForSelector("#view-graph:not([hidden])");
    await page.waitForSelector("#graph[data-nodes]");
    seen.graphNodes = Number(await page.getAttribute("#graph", "data-nodes"));
    seen.graphEdges = Number(await page.getAttribute("#graph", "data-edges"));
    seen.edgeWidths = await page.locator("#graph line.edge").evaluateAll((ls) => ls.map((l) => Number(l.getAttribute("stroke-width"))));
    seen.nodeTypes = await page.locator("#graph .node").evaluateAll((ns) => ns.map((n) => n.dataset.type));
    seen.nodeFills = await page.locator("#graph .node circle").evaluateAll((cs) => cs.map((c) => c.getAttribute("fill")));
    await page.locator(`#graph .node[data-memory-id="${cfg.graphId}"] circle`).click();
    await page.waitForSelector("#graph-detail .card");
    await page.screenshot({ path: join(shots, "06-graph.png"), fullPage: true });
    step = "graph depth 1";
    await page.selectOption("#graph-depth", "1");
    await page.click("#graph-form button[type=submit]");
    // The picture is redrawn: wait for the one drawn at depth 1, not the previous one.
    await page.waitForFunction(() => document.querySelector("#graph")?.dataset.depth === "1");
    seen.graphNodesDepth1 = Number(await page.getAttribute("#graph", "data-nodes"));

    step = "conflicts";
    await tab(page, "conflicts");
    await page.waitForSelector("#conflicts-list > li");
    seen.conflicts = await page.locator("#conflicts-list .conflict").count();
    await page.screenshot({ path: join(shots, "07-conflicts.png"), fullPage: true });
    if (cfg.conflictId) {
      step = "resolve conflict";
      const item = `#conflicts-list [data-conflict-id="${cfg.conflictId}"]`;
      await page.locator(`${item} [data-action=resolve][data-winner="${cfg.conflictWinner}"]`).click();
      await page.waitForSelector(item, { state: "detached" });
      seen.resolved = true;
      await page.screenshot({ path: join(shots, "08-conflicts-resolved.png"), fullPage: true });
    }

    step = "maintenance";
    await tab(page, "maintenance");
    await page.waitForSelector("#changesets-list > li");
    if (cfg.maintenance) {
      await page.selectOption("#maint-mode", "DECAY");
      await page.check("#maint-dry");
      await page.click("#maint-form button[type=submit]");
      await page.waitForSelector("#maint-result .banner");
      seen.maintenanceDry = await page.textContent("#maint-result");
      seen.changesetsAfterDry = await page.locator("#changesets-list .card").count();
      await page.screenshot({ path: join(shots, "09-maintenance.png"), fullPage: true });
      step = "maintenance run and undo";
      await page.uncheck("#maint-dry");
      await page.click("#maint-form button[type=submit]");
      await page.waitForSelector("#changesets-list .card [data-action=undo]:not([disabled])");
      await page.locator("#changesets-list .card [data-action=undo]:not([disabled])").first().click();
      await page.waitForSelector("#confirm[open]");
      await page.click("#confirm-ok");
      await page.waitForSelector("#changesets-list .card [data-action=undo][disabled]");
      seen.undone = await page.locator("#changesets-list .card").first().getAttribute("data-changeset-id");
      await page.screenshot({ path: join(shots, "09b-maintenance-undone.png"), fullPage: true });
    } else {
      await page.screenshot({ path: join(shots, "09-maintenance.png"), fullPage: true });
    }

    step = "export";
    await tab(page, "export");
    if (cfg.export) {
      seen.exportFiles = {};
      for (const ext of ["ttl", "jsonld", "graphml"]) {
        const [download] = await Promise.all([page.waitForEvent("download"), page.click(`[data-export=${ext}]`)]);
        const file = join(profile, `export.${ext}`);
        await download.saveAs(file);
        seen.exportFiles[ext] = { name: download.suggestedFilename(), head: readFileSync(file, "utf8").slice(0, 4000) };
      }
    }
    await page.screenshot({ path: join(shots, "10-export.png"), fullPage: true });
    await page.close();

    // ---- phone width, 390×844 ----
    step = "phone";
    const phone = await open(context, { width: 390, height: 844 });
    await login(phone);
    seen.phoneOverflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await phone.screenshot({ path: join(shots, "11-phone-memories.png"), fullPage: false });
    await tab(phone, "recall");
    await phone.fill("#recall-query", cfg.recallQuery);
    await phone.click("#recall-form button[type=submit]");
    await phone.waitForSelector("#recall-banner:not([hidden])");
    await phone.screenshot({ path: join(shots, "12-phone-recall.png"), fullPage: false });
    await phone.close();

    // ---- introspection off (as in the production profile): the documented shapes only ----
    step = "documented shapes";
    const plain = await open(context, { width: 1280, height: 800 });
    await plain.goto(`${cfg.baseUrl}/ui/?introspect=0#memories`);
    await plain.fill("#api-key", cfg.apiKey || "");
    await plain.fill("#user-id", cfg.userId);
    await plain.click("#load");
    await plain.waitForSelector("#view-memories[data-loaded]");
    seen.staticCards = await plain.locator(".tiers .card").count();
    seen.staticLocked = await plain.locator(`${card(cfg.lockId)} [data-locked=true]`).count();
    await tab(plain, "conflicts");
    await plain.waitForSelector("#conflicts-list > li");
    seen.staticConflicts = await plain.textContent("#conflicts-list");
    await tab(plain, "maintenance");
    await plain.waitForSelector("#changesets-list > li");
    seen.staticChangesets = await plain.locator("#changesets-list .card").count();
    seen.staticChangesetsText = await plain.textContent("#changesets-list");
    await plain.close();
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

main().then(
  () => { process.stdout.write(`${JSON.stringify({ ok: true, seen, consoleErrors })}\n`); },
  (err) => {
    process.stdout.write(`${JSON.stringify({ ok: false, step, error: String(err && err.message || err), seen, consoleErrors })}\n`);
    process.exitCode = 1;
  },
);

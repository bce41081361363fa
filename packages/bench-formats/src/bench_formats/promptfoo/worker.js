// bench's Node worker for promptfoo configs: runs the config's JavaScript (assertions, transforms,
// Nunjucks filters, extension hooks) for one bench run. It is user code, trusted as bench's
// `python` target is (docs/security.md).
//
// Protocol: one JSON request per line on stdin, one JSON answer per line on the file descriptor
// named by argv[2] (stdout and stderr stay the user's: console.log in a check cannot corrupt it).
//   request: {id, op: "inline", params: [names], body, args: [values], timeout_ms}
//            {id, op: "file", path, name, pick: "assertion"|"transform"|"function", args, timeout_ms}
//   answer:  {id, ok: true, value: {type, json}} | {id, ok: false, error: {name, message, stack}}
// The synchronous part of a call runs under vm's timeout (an endless loop is stopped and the worker
// lives on); an asynchronous part is raced against the same limit. The worker exits when stdin ends.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");
const vm = require("node:vm");
const { createRequire } = require("node:module");
const { pathToFileURL } = require("node:url");

const answerFd = Number(process.argv[2]);
const userRequire = createRequire(path.join(process.cwd(), "bench-worker.js"));
// promptfoo hands inline code a `process` whose mainModule.require works from ESM too.
const processShim = new Proxy(process, {
  get(target, prop) {
    if (prop === "mainModule") {
      return { require: userRequire, exports: {}, id: ".", filename: "", loaded: true, children: [], paths: [] };
    }
    return Reflect.get(target, prop);
  },
});

function answer(message) {
  const line = JSON.stringify(message) + "\n";
  const bytes = Buffer.from(line, "utf8");
  let written = 0;
  while (written < bytes.length) {
    written += fs.writeSync(answerFd, bytes, written, bytes.length - written);
  }
}

// A value as JSON plus its JavaScript type: undefined, functions and non-finite numbers survive.
function encode(value) {
  if (value === null) return { type: "null", json: null };
  const type = Array.isArray(value) ? "array" : typeof value;
  if (type === "number" && !Number.isFinite(value)) return { type, json: null, special: String(value) };
  if (type === "undefined" || type === "function" || type === "symbol") return { type, json: null };
  if (type === "bigint") return { type, json: value.toString() };
  return { type, json: JSON.parse(JSON.stringify(value) ?? "null") };
}

const vmInvoke = new vm.Script("globalThis.__benchInvoke()", { filename: "bench-worker-call" });

// fn(...args) with its synchronous part under vm's timeout, then its promise raced against the rest.
async function limited(fn, args, timeoutMs) {
  const started = Date.now();
  globalThis.__benchInvoke = () => fn(...args);
  let result;
  try {
    result = vmInvoke.runInThisContext({ timeout: timeoutMs, breakOnSigint: false });
  } finally {
    delete globalThis.__benchInvoke;
  }
  if (!result || typeof result.then !== "function") return result;
  const left = Math.max(1, timeoutMs - (Date.now() - started));
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`Script execution timed out after ${timeoutMs}ms`)), left);
  });
  try {
    return await Promise.race([result, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

class TimeoutError extends Error {
  constructor(message) {
    super(message);
    this.name = "TimeoutError";
  }
}

const CJS_SIGNS = [
  "require is not defined",
  "module is not defined",
  "exports is not defined",
  "__dirname is not defined",
  "__filename is not defined",
  "Cannot use import statement",
  "ERR_REQUIRE_ESM",
];

// A CommonJS file that Node took for ESM (a "type": "module" package): run it as CommonJS.
function loadAsCommonJs(file) {
  const code = fs.readFileSync(file, "utf8");
  const module = { exports: {} };
  const wrapper = vm.runInThisContext(`(function (exports, require, module, __filename, __dirname) {${code}\n})`, {
    filename: file,
  });
  wrapper(module.exports, createRequire(file), module, file, path.dirname(file));
  return module.exports;
}

const modules = new Map();

async function load(file) {
  if (modules.has(file)) return modules.get(file);
  if (!fs.existsSync(file)) {
    const error = new Error(`ENOENT: no such file or directory, open '${file}'`);
    error.code = "ENOENT";
    throw error;
  }
  let mod;
  try {
    const imported = await import(pathToFileURL(file).href);
    mod = imported?.default?.default || imported?.default || imported;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!file.endsWith(".js") || !CJS_SIGNS.some((sign) => message.includes(sign))) throw error;
    mod = loadAsCommonJs(file);
  }
  modules.set(file, mod);
  return mod;
}

// The function a file names, chosen as promptfoo chooses it for each use.
function pick(mod, name, how, file) {
  if (how === "transform") {
    if (name && mod && Object.prototype.hasOwnProperty.call(mod, name) && typeof mod[name] === "function") return mod[name];
    if (typeof mod === "function") return mod;
    if (mod && typeof mod.default === "function") return mod.default;
    throw new Error(
      `Transform ${file} must export a function, have a default export as a function, or export the specified function "${name}"`,
    );
  }
  if (how === "assertion") {
    const chosen = name ? mod?.[name] : mod;
    if (typeof chosen === "function") return chosen;
    if (chosen && typeof chosen.default === "function") return chosen.default;
    throw new Error(`Assertion malformed: ${file} must export a function or have a default export as a function`);
  }
  const chosen = name ? mod?.[name] : mod;
  if (typeof chosen === "function") return chosen;
  if (!name && mod && typeof mod.default === "function") return mod.default;
  throw new Error(`${file} does not export a function${name ? ` named '${name}'` : ""}`);
}

// promptfoo's context.provider is an ApiProvider: its id is a method.
function withProviderMethods(args) {
  for (const arg of args) {
    const provider = arg && typeof arg === "object" ? arg.provider : undefined;
    if (provider && typeof provider === "object" && typeof provider.id === "string") {
      const id = provider.id;
      provider.id = () => id;
    }
  }
  return args;
}

async function handle(request) {
  const timeoutMs = Math.max(1, Math.floor(request.timeout_ms || 30000));
  withProviderMethods(request.args || []);
  if (request.op === "inline") {
    const fn = new Function(...request.params, "process", request.body);
    return limited(fn, [...request.args, processShim], timeoutMs);
  }
  if (request.op === "file") {
    const mod = await load(request.path);
    const fn = pick(mod, request.name || null, request.pick, request.path);
    return limited(fn, request.args, timeoutMs);
  }
  throw new Error(`unknown request '${request.op}'`);
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    answer({ id: null, ok: false, error: { name: "ProtocolError", message: `not JSON: ${error.message}`, stack: "" } });
    return;
  }
  handle(request).then(
    (value) => {
      let encoded;
      try {
        encoded = encode(value);
      } catch (error) {
        answer({ id: request.id, ok: false, error: { name: "TypeError", message: `the value cannot be sent back: ${error.message}`, stack: "" } });
        return;
      }
      answer({ id: request.id, ok: true, value: encoded });
    },
    (error) => {
      const isError = error instanceof Error;
      answer({
        id: request.id,
        ok: false,
        error: {
          name: isError ? error.name : "Error",
          message: isError ? error.message : String(error),
          stack: isError && error.stack ? String(error.stack) : "",
          timeout: error instanceof TimeoutError || (isError && error.code === "ERR_SCRIPT_EXECUTION_TIMEOUT"),
        },
      });
    },
  );
});
lines.on("close", () => process.exit(0));
process.on("unhandledRejection", () => {});

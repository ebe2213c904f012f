import { PLAN_NAMES } from '@cds/contracts';
import { parseCommandLine, readCommand, resolveAddresses, UsageError } from '@cds/config';

/** Where the CLI writes, and the environment it reads (tests pass their own). */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

export const ADMIN_USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-account --name NAME --plan <${PLAN_NAMES.join('|')}>
  show-account   --account acc_...
  create-key     --account acc_... [--label TEXT]   prints the key once: store it now
  list-keys      --account acc_...                  metadata only
  revoke-key     --key key_...                       irreversible
  set-plan       --account acc_... --plan <plan>
  incident       open|update|resolve|list ...       the status page's incidents (incident --help)

Options:
  --admin-url URL     admin API address (default: $ADMIN_URL, else .cds/local.json from npm start)
  --admin-token TOK   admin token (default: $ADMIN_TOKEN, else .cds/local.json)
  --json              print the API's JSON answer instead of text
  -h, --help          this text`;

export interface AdminRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: Record<string, unknown>;
}

export type AdminCommand =
  | { command: 'help' }
  | { command: string; request: AdminRequest; json: boolean; adminUrl?: string; adminToken?: string };

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required`);
  return value;
}

/** Parses the admin CLI's arguments into the admin API request it stands for. */
export function parseAdminArgs(argv: readonly string[]): AdminCommand {
  const parsed = parseCommandLine(
    argv,
    {
      name: { type: 'string' },
      plan: { type: 'string' },
      account: { type: 'string' },
      key: { type: 'string' },
      label: { type: 'string' },
      'admin-url': { type: 'string' },
      'admin-token': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    'missing command',
  );
  if (!('values' in parsed)) return { command: 'help' };
  const { command, values: v } = parsed;
  const account = () => encodeURIComponent(need(v.account, 'account'));
  let request: AdminRequest;
  switch (command) {
    case 'create-account':
      request = {
        method: 'POST',
        path: '/admin/v1/accounts',
        body: { name: need(v.name, 'name'), plan: need(v.plan, 'plan') },
      };
      break;
    case 'show-account':
      request = { method: 'GET', path: `/admin/v1/accounts/${account()}` };
      break;
    case 'create-key':
      request = {
        method: 'POST',
        path: `/admin/v1/accounts/${account()}/keys`,
        body: v.label !== undefined ? { label: v.label } : {},
      };
      break;
    case 'list-keys':
      request = { method: 'GET', path: `/admin/v1/accounts/${account()}/keys` };
      break;
    case 'revoke-key':
      request = { method: 'POST', path: `/admin/v1/keys/${encodeURIComponent(need(v.key, 'key'))}/revoke` };
      break;
    case 'set-plan':
      request = { method: 'PUT', path: `/admin/v1/accounts/${account()}/plan`, body: { plan: need(v.plan, 'plan') } };
      break;
    default:
      throw new UsageError(`unknown command ${command}`);
  }
  return {
    command,
    request,
    json: v.json === true,
    ...(v['admin-url'] !== undefined ? { adminUrl: v['admin-url'] } : {}),
    ...(v['admin-token'] !== undefined ? { adminToken: v['admin-token'] } : {}),
  };
}

type Json = Record<string, unknown>;

function keyLine(k: Json): string {
  const label = typeof k.label === 'string' ? `  label=${k.label}` : '';
  const revoked = typeof k.revoked_at === 'string' ? `  revoked_at=${k.revoked_at}` : '';
  return `${String(k.key_id)}  ${String(k.status)}  created_at=${String(k.created_at)}${label}${revoked}`;
}

/** Human-readable text of a successful answer. */
export function formatAdminResult(command: string, body: Json): string {
  switch (command) {
    case 'create-account':
      return `account ${String(body.account_id)} created (name: ${String(body.name)}, plan: ${String(body.plan)})`;
    case 'create-key':
      return [
        `key ${String(body.key_id)} created for ${String(body.account_id)}`,
        `API key (shown once, store it now): ${String(body.key)}`,
      ].join('\n');
    case 'list-keys': {
      const keys = (body.keys as Json[] | undefined) ?? [];
      return keys.length === 0 ? 'no keys' : keys.map(keyLine).join('\n');
    }
    case 'show-account': {
      const keys = (body.keys as Json[] | undefined) ?? [];
      return [
        `account ${String(body.account_id)}  name=${String(body.name)}  plan=${String(body.plan)}  created_at=${String(body.created_at)}`,
        ...keys.map((k) => `  ${keyLine(k)}`),
      ].join('\n');
    }
    case 'revoke-key':
      return `key ${String(body.key_id)} revoked`;
    case 'set-plan':
      return `account ${String(body.account_id)}: plan ${String(body.previous_plan)} -> ${String(body.plan)}`;
    default:
      return JSON.stringify(body, null, 2);
  }
}

/** The admin CLI: one HTTP request to the admin API. Exit 0 on success, 1 on an API or network error, 2 on usage. */
export async function runAdminCli(argv: readonly string[], io: CliIo, fetchFn: typeof fetch = fetch): Promise<number> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  const cmd = readCommand(parseAdminArgs, argv, ADMIN_USAGE, io);
  if (typeof cmd === 'number') return cmd;
  let addresses;
  try {
    addresses = resolveAddresses(
      {
        ...(cmd.adminUrl !== undefined ? { adminUrl: cmd.adminUrl } : {}),
        ...(cmd.adminToken !== undefined ? { adminToken: cmd.adminToken } : {}),
      },
      io.env,
    );
  } catch (err) {
    say(`error: ${(err as Error).message}`);
    return 1;
  }
  if (addresses.adminUrl === undefined || addresses.adminToken === undefined) {
    say(
      'error: no admin API address or token: pass --admin-url/--admin-token, set ADMIN_URL/ADMIN_TOKEN, or run `npm start`',
    );
    return 1;
  }
  const url = `${addresses.adminUrl.replace(/\/+$/, '')}${cmd.request.path}`;
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: cmd.request.method,
      headers: {
        authorization: `Bearer ${addresses.adminToken}`,
        ...(cmd.request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(cmd.request.body !== undefined ? { body: JSON.stringify(cmd.request.body) } : {}),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    say(`error: cannot reach the admin API at ${addresses.adminUrl}: ${(err as Error).message}`);
    return 1;
  }
  let body: Json;
  try {
    body = (await res.json()) as Json;
  } catch {
    say(`error: the admin API answered ${res.status} without a JSON body`);
    return 1;
  }
  if (!res.ok) {
    const e = (body.error ?? {}) as Json;
    const param = typeof e.param === 'string' ? ` (${e.param})` : '';
    const code = typeof e.code === 'string' ? e.code : 'error';
    const message = typeof e.message === 'string' ? e.message : 'request failed';
    say(`error: ${res.status} ${code}${param}: ${message}`);
    return 1;
  }
  io.stdout.write(`${cmd.json ? JSON.stringify(body, null, 2) : formatAdminResult(cmd.command, body)}\n`);
  return 0;
}

import { cliRegion, type GivenArn, type GivenQueueUrl, type GivenRegion, queuesRegion, sharedProfile } from '../cli-region.js';
import { RELAY_ENV } from '../event-source.js';
import { showValue } from '../show-value.js';
import { RedriveOptionsError } from './errors.js';

/** What of a parsed redrive (`RedriveCommand`) names its queues and Region. */
export type Redrive = GivenRegion &
  (
    | { readonly kind: 'relay-dlq'; readonly queueUrl: string; readonly topicArns?: Readonly<Record<string, string>> }
    | { readonly kind: 'queue-dlq'; readonly queueUrl: string; readonly targetQueueUrl: string }
    | {
        readonly kind: 'on-failure';
        readonly source: { readonly queueUrl: string } | { readonly bucket: string };
        readonly relayDlqUrl?: string;
        readonly topicArns?: Readonly<Record<string, string>>;
      }
  );

/**
 * The queue URLs of a redrive, by the flag that gave each: `--relay-dlq-url`'s by the relay's
 * variable when it came from there (`relayDlqFlag`).
 */
export function redriveQueueUrls(command: Redrive, relayDlqFlag = '--relay-dlq-url'): GivenQueueUrl[] {
  if (command.kind === 'relay-dlq') return [{ flag: '--queue-url', url: command.queueUrl }];
  if (command.kind === 'queue-dlq') {
    return [
      { flag: '--queue-url', url: command.queueUrl },
      { flag: '--to', url: command.targetQueueUrl },
    ];
  }
  return [
    ...('queueUrl' in command.source ? [{ flag: '--queue-url', url: command.source.queueUrl }] : []),
    ...(command.relayDlqUrl === undefined ? [] : [{ flag: relayDlqFlag, url: command.relayDlqUrl }]),
  ];
}

/**
 * The topic ARNs of a redrive (relay-dlq, on-failure), each named by its topic, said to come from
 * `topicArnsEnv` (the relay's `OUTBOX_TOPIC_ARNS`) when that holds them: SNS routes by none of them.
 * None when an endpoint is configured for SNS ({@link snsEndpointConfigured}).
 */
async function redriveTopicArns(command: Redrive, env: NodeJS.ProcessEnv, topicArnsEnv: string): Promise<GivenArn[]> {
  if (command.kind === 'queue-dlq' || command.topicArns === undefined || (await snsEndpointConfigured(env))) return [];
  const from = sameJson(env[topicArnsEnv], command.topicArns) ? ` (from ${topicArnsEnv})` : '';
  return Object.entries(command.topicArns).map(([topic, arn]) => ({ field: '--topic-arns', name: `topic ${showValue(topic)}`, arn, from }));
}

/**
 * Whether the SDK's SNS client sends every call to an endpoint configured for it, as its
 * `getEndpointFromConfig` reads one (a local emulator's, as with `--endpoint`, so no topic's Region
 * is refused): `AWS_ENDPOINT_URL_SNS` or `AWS_ENDPOINT_URL`, else the profile's `endpoint_url` or
 * the `sns` `endpoint_url` of the `[services …]` section it names (the config file's profile over
 * the credentials file's); none when `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` (else the profile's
 * `ignore_configured_endpoint_urls`) is `true`.
 */
async function snsEndpointConfigured(env: NodeJS.ProcessEnv): Promise<boolean> {
  const { configFile, credentialsFile, profile: name } = await sharedProfile(env);
  const profile = { ...credentialsFile[name], ...configFile[name] };
  if ((env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS || profile.ignore_configured_endpoint_urls) === 'true') return false;
  if (env.AWS_ENDPOINT_URL_SNS || env.AWS_ENDPOINT_URL) return true;
  if (profile.services !== undefined) {
    // A services section named but missing: the SDK takes no endpoint from the files.
    const services = configFile[`services.${profile.services}`];
    if (services === undefined) return false;
    if (services['sns.endpoint_url']) return true;
  }
  return Boolean(profile.endpoint_url);
}

/** Whether `text` is the JSON of `value` (read as JSON, then written again). */
function sameJson(text: string | undefined, value: unknown): boolean {
  if (text === undefined || text === '') return false;
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/** The flag `--relay-dlq-url` was given by: itself, or the relay's variable in `env`. */
const relayDlqFlagOf = (command: Redrive, env: NodeJS.ProcessEnv): string =>
  command.kind === 'on-failure' && command.relayDlqUrl === env[RELAY_ENV.deadLetterQueueUrl]
    ? `--relay-dlq-url (from ${RELAY_ENV.deadLetterQueueUrl})`
    : '--relay-dlq-url';

const refusal =
  (command: string) =>
  (field: string, detail: string): RedriveOptionsError =>
    new RedriveOptionsError(field, detail, { command });

/**
 * A parsed redrive, its queue URLs' Regions checked against each other and `--region`
 * (`queuesRegion`): a {@link RedriveOptionsError} before any AWS call when they differ. Its topic
 * ARNs are checked by {@link redriveRegion}, which reads the profile (an endpoint configured for SNS).
 */
export function regionChecked<C extends Redrive>(command: C, env: NodeJS.ProcessEnv): C {
  queuesRegion(redriveQueueUrls(command, relayDlqFlagOf(command, env)), command, refusal('redrive'));
  return command;
}

/**
 * The Region of a redrive's clients (`cliRegion`): `--region`, else its queue URLs', else the
 * SDK's own, else its topic ARNs'; a Region set in AWS_REGION or the profile other than the URLs'
 * is refused, and so is a topic ARN of another Region than the run's.
 */
export const redriveRegion = async (
  command: Redrive,
  env: NodeJS.ProcessEnv,
  topicArnsEnv: string = RELAY_ENV.topicArns,
): Promise<string | undefined> =>
  cliRegion(
    redriveQueueUrls(command, relayDlqFlagOf(command, env)),
    command,
    env,
    refusal('redrive'),
    await redriveTopicArns(command, env, topicArnsEnv),
  );

/** The Region of `dlq summarize`'s client, as {@link redriveRegion}. */
export const summarizeRegion = (
  command: GivenRegion & { readonly queueUrl: string },
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> => cliRegion([{ flag: '--queue-url', url: command.queueUrl }], command, env, refusal('dlq summarize'));

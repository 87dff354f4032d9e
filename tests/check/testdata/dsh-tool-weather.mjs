// A dsh tool package as a TypeScript author writes one (compiled), whose
// `weather` tool's arguments went through two revisions: {town} (1), then
// {city: {name}} (2, today). It exports `revisions` for retrace's dsh adapter
// (check/dsh-presenters.mjs): the older schema and the step between them.
import { defineTool } from '@deepseek-ai/dsh-tools';

export const name = 'tool-weather';
export const inject = ['tools'];

export const revisions = {
  weather: {
    current: 2,
    parameters: { 1: { town: { type: 'string', required: true } } },
    steps: [{
      from: 1,
      to: 2,
      arguments: (a) => ({ city: { name: a.town } }),
      meta: (m) => ({ degrees: m.temp }),
    }],
  },
};

export function apply(ctx) {
  ctx.tools.register(defineTool({
    name: 'weather',
    description: 'The weather in a city.',
    parameters: {
      city: { type: 'object', required: true, additionalProperties: false, properties: { name: { type: 'string', required: true } } },
    },
    output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
    execute: async () => 'sunny',
    presentCall: (args) => ({ card: 'generic', title: `Weather in ${args.city.name}`, kind: 'fetch' }),
    presentResult: (args, result) => ({
      card: 'generic',
      title: `Weather in ${args.city.name}` + (result.meta?.degrees !== undefined ? `, ${result.meta.degrees} C` : ''),
    }),
  }));
}

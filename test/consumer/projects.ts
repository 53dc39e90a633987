/**
 * The fresh npm projects the consumer test builds: each installs packed Baton tarballs next
 * to a real framework at a pinned version, then runs a package README's quickstart on plain
 * Node with the framework's own mock model in place of the provider.
 */

/** What the mock answers in every adapter project: a notes write, then a final text. */
const NOTE = 'Bisect the nightly failure.';
const ANSWER = 'The nightly build fails in step 3.';

export interface ConsumerProject {
  /** Test title and folder name. */
  name: string;
  /** Baton packages installed from their tarballs (the rest resolve to tarballs through overrides). */
  baton: string[];
  /** Registry packages at exact versions. */
  registry: Record<string, string>;
  /** The README whose quickstart block the project runs. */
  readme: string;
  /** Files written next to the snippet (the mock model and its types). */
  files?: Record<string, string>;
  /** For projects that must refuse to work: the text the run's output must contain. */
  refuses?: string;
  /** npm flags for a project that deliberately breaks a peer range. */
  npmFlags?: string[];
  /** The module whose CommonJS `require` must work (Node >= 22.12 loads ESM through require). */
  requires?: string;
}

/**
 * A mock model file over one of @baton/testing's scripted models: a notes write at the first
 * call, then the answer; `check` asserts on what crossed the boundary into the model.
 */
function scriptedModelFile(framework: 'ai-sdk' | 'mastra', mockType: string, checks: string) {
  const counter = framework === 'ai-sdk' ? 'step' : 'call';
  return {
    'your-model.js': `import { scriptedModel } from '@baton/testing/${framework}';

const scripted = scriptedModel(({ ${counter} }) =>
  ${counter} === 0
    ? { calls: [{ name: 'notes', input: { action: 'write', section: 'plan', text: ${JSON.stringify(NOTE)} } }] }
    : { text: ${JSON.stringify(ANSWER)} },
);
export const yourModel = scripted.model;

export function check() {
${checks}
}
`,
    'your-model.d.ts': `export declare const yourModel: ${mockType};
export declare function check(): void;
`,
  };
}

// The AI SDK mock records each call's options: Baton's tools offered, the notes write answered.
const aiSdkModel = scriptedModelFile(
  'ai-sdk',
  "import('ai/test').MockLanguageModelV4",
  `  const calls = yourModel.doGenerateCalls;
  const offered = calls[0].tools.map((tool) => tool.name).sort().join(',');
  if (offered !== 'compact,notes,read_file,recall') throw new Error('tools offered: ' + offered);
  if (calls.length !== 2) throw new Error(calls.length + ' model calls');
  if (!JSON.stringify(calls[1].prompt).includes(${JSON.stringify(NOTE)})) throw new Error('the note did not reach call 2');
  console.log('checked: ' + calls.length + ' model calls; tools ' + offered);`,
);

const langchainModel = {
  'your-model.js': `import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from 'langchain';

const seen = [];
export const yourModel = fakeModel();
yourModel.respond((messages) => {
  seen.push(messages);
  return new AIMessage({
    content: '',
    tool_calls: [{ id: 'call-1', name: 'notes', args: { action: 'write', section: 'plan', text: ${JSON.stringify(NOTE)} }, type: 'tool_call' }],
  });
});
yourModel.respond((messages) => {
  seen.push(messages);
  return new AIMessage(${JSON.stringify(ANSWER)});
});

/** What crossed the boundary into the model: the notes tool ran and its result reached call 2. */
export function check() {
  if (seen.length !== 2) throw new Error(seen.length + ' model calls');
  const second = seen[1].map((m) => m.getType() + ':' + JSON.stringify(m.content) + JSON.stringify(m.tool_calls ?? [])).join('\\n');
  if (!second.includes(${JSON.stringify(NOTE)}) || !second.includes('tool:')) throw new Error('call 2 saw: ' + second);
  console.log('checked: ' + seen.length + ' model calls; the notes tool answered');
}
`,
  'your-model.d.ts': `export declare const yourModel: ReturnType<typeof import('langchain').fakeModel>;
export declare function check(): void;
`,
};

// Mastra's calls as the scripted model saw them: the notes tool ran and its result reached call 2.
const mastraModel = scriptedModelFile(
  'mastra',
  "import('@mastra/core/test-utils/llm-mock').MastraLanguageModelV2Mock",
  `  const calls = scripted.calls;
  if (calls.length !== 2) throw new Error(calls.length + ' model calls');
  if (!calls[1].visible.includes(${JSON.stringify(NOTE)})) throw new Error('the note did not reach call 2');
  console.log('checked: ' + calls.length + ' model calls; the notes tool answered');`,
);

/** Versions this repository develops against (its lockfile), and the lowest each peer range admits. */
export const CONSUMER_PROJECTS: ConsumerProject[] = [
  {
    name: 'ai-sdk, current',
    baton: ['@baton/ai-sdk', '@baton/testing'],
    registry: { ai: '7.0.173', '@ai-sdk/provider': '4.0.38', zod: '4.6.7' },
    readme: 'packages/ai-sdk/README.md',
    files: aiSdkModel,
    requires: '@baton/ai-sdk',
  },
  {
    name: 'ai-sdk, lowest peers',
    baton: ['@baton/ai-sdk', '@baton/testing'],
    registry: { ai: '7.0.0', '@ai-sdk/provider': '4.0.0', zod: '3.25.76' },
    readme: 'packages/ai-sdk/README.md',
    files: aiSdkModel,
  },
  {
    name: 'langgraph, current',
    baton: ['@baton/langgraph'],
    registry: {
      langchain: '1.5.14',
      '@langchain/core': '1.4.0',
      '@langchain/langgraph': '1.7.3',
      zod: '4.6.7',
    },
    readme: 'packages/langgraph/README.md',
    files: langchainModel,
    requires: '@baton/langgraph',
  },
  {
    name: 'langgraph, lowest peers',
    baton: ['@baton/langgraph'],
    registry: {
      langchain: '1.5.0',
      '@langchain/core': '1.2.13',
      '@langchain/langgraph': '1.4.13',
      zod: '3.25.76',
    },
    readme: 'packages/langgraph/README.md',
    files: langchainModel,
  },
  {
    name: 'mastra, current',
    baton: ['@baton/mastra', '@baton/testing'],
    registry: { '@mastra/core': '1.71.0', zod: '4.6.7' },
    readme: 'packages/mastra/README.md',
    files: mastraModel,
    requires: '@baton/mastra',
  },
  {
    name: 'mastra, lowest peers',
    baton: ['@baton/mastra', '@baton/testing'],
    registry: { '@mastra/core': '1.33.0', zod: '3.25.76' },
    readme: 'packages/mastra/README.md',
    files: mastraModel,
  },
  {
    // Below the peer range on purpose (as a user who forces the install): loud, not silent.
    name: 'mastra 1.32, below the peer range',
    baton: ['@baton/mastra', '@baton/testing'],
    registry: { '@mastra/core': '1.32.1', zod: '4.6.7' },
    readme: 'packages/mastra/README.md',
    files: mastraModel,
    npmFlags: ['--legacy-peer-deps'],
    refuses:
      'BatonConfigError: [baton] [mastra] @mastra/core 1.32.1 is installed, but BatonProcessor needs @mastra/core >= 1.33.0',
  },
  {
    name: 'postgres',
    baton: ['@baton/postgres', '@baton/core'],
    registry: { zod: '4.6.7' },
    readme: 'packages/postgres/README.md',
    requires: '@baton/postgres',
  },
];

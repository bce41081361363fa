module.exports = {
  mentionsFile: (output) => (output.includes('file') ? 1 : 0),
  explodes: () => {
    throw new Error('the check exploded');
  },
  expectedText: (output, context) => `expected-from-${context.vars.topic}`,
};

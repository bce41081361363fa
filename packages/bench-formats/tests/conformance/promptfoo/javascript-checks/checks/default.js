module.exports = (output, context) => output.includes('fine') && context.vars.topic === 'files';

module.exports = {
  upperCity: (output) => JSON.parse(output).city.toUpperCase(),
  visits: (output, context) => JSON.parse(output).visits,
  addGreeting: (vars) => ({ greeting: `Hello ${vars.city}` }),
};

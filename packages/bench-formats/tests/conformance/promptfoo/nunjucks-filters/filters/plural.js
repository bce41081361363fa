module.exports = function (count, noun) {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
};

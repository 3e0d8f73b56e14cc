// The browser's stand-in for Node's `fs` and `buffer` modules. @sctg/sentencepiece-js imports both at its
// top but uses them only to read files from disk in Node; the page hands it the model's bytes instead.
// index.html's import map points "fs" and "buffer" here.
export const Buffer = undefined;
export const readFileSync = () => {
  throw new Error("no file system in the browser");
};
export default {};

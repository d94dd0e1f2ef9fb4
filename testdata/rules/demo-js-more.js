// cfetch --render-script for the demo shop's /js/more.html: click
// "load more" until the button goes, waiting each time for the new
// products. Other pages have no #more: it returns at once.
(async () => {
  const count = () => document.querySelectorAll('.js-product').length;
  for (let clicks = 0; clicks < 50; clicks++) {
    const more = document.getElementById('more');
    if (!more) return;
    const before = count();
    more.click();
    while (count() === before) await new Promise(r => setTimeout(r, 10));
  }
})()

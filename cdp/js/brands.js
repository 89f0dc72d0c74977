// brandsScript (connect.go): the brands a page sees, which tell Chrome
// from Chromium, Edge and Brave.
navigator.userAgentData ? navigator.userAgentData.brands : []
